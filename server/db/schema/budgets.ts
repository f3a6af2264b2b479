import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
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
    budgetUuid: uuid("budget_uuid").primaryKey().default(sql`gen_random_uuid()`),
    organizationUuid: text("organization_uuid").notNull(),
    workspaceUuid: uuid("workspace_uuid").references(() => workspaces.workspaceUuid, {
      onDelete: "cascade",
    }),
    amountMicros: bigint("amount_micros", { mode: "bigint" }).notNull(),
    /** Percent of the amount, ascending, distinct, 1..1000. */
    thresholds: integer("thresholds").array().notNull(),
    hardLimit: boolean("hard_limit").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
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
    budgetAlertUuid: uuid("budget_alert_uuid").primaryKey().default(sql`gen_random_uuid()`),
    budgetUuid: uuid("budget_uuid")
      .notNull()
      .references(() => budgets.budgetUuid, { onDelete: "cascade" }),
    organizationUuid: text("organization_uuid").notNull(),
    /** The billing cycle's start date. */
    cycleStart: date("cycle_start", { mode: "string" }).notNull(),
    threshold: integer("threshold").notNull(),
    triggeredAt: timestamp("triggered_at", { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    /** Spend when the alert last changed state. */
    spentMicros: bigint("spent_micros", { mode: "bigint" }).notNull(),
    triggeredNotifiedAt: timestamp("triggered_notified_at", { withTimezone: true }),
    resolvedNotifiedAt: timestamp("resolved_notified_at", { withTimezone: true }),
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
