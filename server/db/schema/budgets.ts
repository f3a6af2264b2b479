import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  index,
  integer,
  pgTable,
  text,
  unique,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, dateText, micros, randomUuidKey, timestamptz, updatedAt } from "./columns";
import { workspaces } from "./product";

/**
 * A monthly spend budget: the organization's (workspace_uuid null) or one workspace's. At most one
 * of each (the two partial unique indexes), so a second create for the same scope is a conflict
 * even when two requests race. A trigger (migration "budgets") raises the organization's
 * metering_config_versions counter on every change, which is how ingestion's per-process cache of
 * budgets (server/metering/budgets/cache.ts) learns of it.
 */
export const budgets = pgTable(
  "budgets",
  {
    budgetUuid: randomUuidKey("budget_uuid"),
    organizationUuid: text("organization_uuid").notNull(),
    workspaceUuid: uuid("workspace_uuid").references(() => workspaces.workspaceUuid, {
      onDelete: "cascade",
    }),
    amountMicros: micros("amount_micros").notNull(),
    /** Percent of the amount, ascending, distinct, 1..1000. */
    thresholds: integer("thresholds").array().notNull(),
    hardLimit: boolean("hard_limit").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("budgets_org_idx").on(t.organizationUuid),
    uniqueIndex("budgets_organization_scope_key")
      .on(t.organizationUuid)
      .where(sql`${t.workspaceUuid} is null`),
    uniqueIndex("budgets_workspace_scope_key").on(t.workspaceUuid).where(sql`${t.workspaceUuid} is not null`),
    check("budgets_amount_positive", sql`${t.amountMicros} > 0`),
  ],
);

/**
 * One threshold of one budget in one billing cycle: inserted when spend first reaches it
 * (triggered), updated once when spend falls back below it or the cycle ends (resolved). The unique
 * key makes "once per threshold per cycle" hold across API processes: a second ingestion that sees
 * the same crossing inserts nothing. The *_notified_at columns are the alert emails' outbox: the
 * sender claims a pending notice after the transaction that wrote it committed.
 */
export const budgetAlerts = pgTable(
  "budget_alerts",
  {
    budgetAlertUuid: randomUuidKey("budget_alert_uuid"),
    budgetUuid: uuid("budget_uuid")
      .notNull()
      .references(() => budgets.budgetUuid, { onDelete: "cascade" }),
    organizationUuid: text("organization_uuid").notNull(),
    /** The billing cycle's start date. */
    cycleStart: dateText("cycle_start").notNull(),
    threshold: integer("threshold").notNull(),
    triggeredAt: timestamptz("triggered_at").notNull().defaultNow(),
    resolvedAt: timestamptz("resolved_at"),
    /** Spend when the alert last changed state. */
    spentMicros: micros("spent_micros").notNull(),
    triggeredNotifiedAt: timestamptz("triggered_notified_at"),
    resolvedNotifiedAt: timestamptz("resolved_notified_at"),
  },
  (t) => [
    unique("budget_alerts_budget_cycle_threshold_key").on(t.budgetUuid, t.cycleStart, t.threshold),
    index("budget_alerts_open_idx").on(t.organizationUuid).where(sql`${t.resolvedAt} is null`),
    index("budget_alerts_unsent_idx")
      .on(t.triggeredAt)
      .where(
        sql`${t.triggeredNotifiedAt} is null or (${t.resolvedAt} is not null and ${t.resolvedNotifiedAt} is null)`,
      ),
  ],
);
