// The column builders the tables share, so that a kind of column (a time, money, a generated id,
// the dimensions usage is counted by) is written one way in every table. Each call makes new
// builders: Drizzle binds a builder to the one table it is declared in.
import { sql } from "drizzle-orm";
import { type AnyPgColumn, bigint, boolean, date, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";

// Money is stored as integer micro-dollars (1 USD = 1,000,000) in bigint columns and read as
// JavaScript bigint: sums never pass through floating point.
export const micros = (name: string) => bigint(name, { mode: "bigint" });

/** Every point in time is stored with its time zone (and read as UTC). */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true });

/** A calendar date (a UTC day, a billing cycle's bound) read as its "YYYY-MM-DD" text. */
export const dateText = (name: string) => date(name, { mode: "string" });

/** A primary key the database draws at random, so ids reveal nothing about other rows. */
export const randomUuidKey = (name: string) => uuid(name).primaryKey().default(sql`gen_random_uuid()`);

export const createdAt = () => timestamptz("created_at").notNull().defaultNow();
export const updatedAt = () => timestamptz("updated_at").notNull().defaultNow();

/** The leading dimensions of every daily rollup of usage (organization, UTC day, workspace…). */
export const rollupDimensions = () => ({
  organizationUuid: text("organization_uuid").notNull(),
  /** UTC day of occurred_at. */
  day: dateText("day").notNull(),
  workspaceUuid: uuid("workspace_uuid"),
  operation: text("operation").notNull(),
  evalType: text("eval_type").notNull(),
});

type RollupDimensionColumns = { [K in keyof ReturnType<typeof rollupDimensions>]: AnyPgColumn };

/**
 * A rollup's key: the leading dimensions, then its own. Leads with (organization, day), so the key
 * also serves the dashboard's reads of a cycle; NULLS NOT DISTINCT, so events without a workspace
 * share one row per day and dimensions.
 */
export const rollupKey = (name: string, t: RollupDimensionColumns, ...own: AnyPgColumn[]) =>
  unique(name)
    .on(t.organizationUuid, t.day, t.workspaceUuid, t.operation, t.evalType, ...own)
    .nullsNotDistinct();

/** What every daily rollup of usage sums. */
export const rollupSums = () => ({
  eventCount: bigint("event_count", { mode: "number" }).notNull(),
  quantitySum: bigint("quantity_sum", { mode: "number" }).notNull(),
  costMicrosSum: micros("cost_micros_sum").notNull(),
});

/** A usage event as its sender described it: stored, and kept as such while awaiting pricing. */
export const usageEventFacts = () => ({
  organizationUuid: text("organization_uuid").notNull(),
  /** The client's idempotency key. */
  eventId: text("event_id").notNull(),
  occurredAt: timestamptz("occurred_at").notNull(),
  workspaceUuid: uuid("workspace_uuid"),
  evalUuid: text("eval_uuid"),
  evalRunUuid: text("eval_run_uuid"),
  name: text("name"),
  operation: text("operation").notNull(),
  evalType: text("eval_type").notNull(),
  /** Lower-cased; "" when the event has none. */
  modality: text("modality").notNull().default(""),
  isJailbreak: boolean("is_jailbreak").notNull().default(false),
  hasGroundTruth: boolean("has_ground_truth").notNull().default(false),
  createdBy: text("created_by"),
  quantity: bigint("quantity", { mode: "number" }).notNull().default(1),
  ruleMetric: text("rule_metric").notNull().default("eval"),
});
