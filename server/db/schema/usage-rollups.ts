import { bigint, boolean, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { dateText, rollupDimensions, rollupKey, rollupSums, timestamptz } from "./columns";

/** Per-day sums of usage_events, written in the same transaction as the events they count. */
export const usageDaily = pgTable(
  "usage_daily",
  {
    ...rollupDimensions(),
    modality: text("modality").notNull(),
    isJailbreak: boolean("is_jailbreak").notNull(),
    hasGroundTruth: boolean("has_ground_truth").notNull(),
    ruleMetric: text("rule_metric").notNull(),
    ...rollupSums(),
  },
  (t) => [
    rollupKey("usage_daily_dims_key", t, t.modality, t.isJailbreak, t.hasGroundTruth, t.ruleMetric),
    index("usage_daily_org_day_idx").on(t.organizationUuid, t.day.desc()),
  ],
);

/**
 * usage_daily without the modality, jailbreak and ground-truth dimensions: the dashboard reads it
 * whenever those three filters are unset (the default page), a fraction of usage_daily's rows.
 * `modalities` keeps the modalities its usage had, for the filter options. Written in the same
 * transaction as usage_daily (server/metering/shared/rollups.ts), so both always hold the same sums.
 */
export const usageDailyCoarse = pgTable(
  "usage_daily_coarse",
  {
    ...rollupDimensions(),
    ruleMetric: text("rule_metric").notNull(),
    /** The distinct modalities of the usage counted here ("" when none), sorted. */
    modalities: text("modalities").array().notNull(),
    ...rollupSums(),
  },
  (t) => [rollupKey("usage_daily_coarse_dims_key", t, t.ruleMetric)],
);

/**
 * usage_daily without modality (the distinct modalities kept, sorted, for the filter options):
 * serves the filter sets with a jailbreak or ground-truth filter and no modality filter from less
 * than half of usage_daily's rows (modality is what multiplies them). Written with both others.
 */
export const usageDailyMid = pgTable(
  "usage_daily_mid",
  {
    ...rollupDimensions(),
    isJailbreak: boolean("is_jailbreak").notNull(),
    hasGroundTruth: boolean("has_ground_truth").notNull(),
    ruleMetric: text("rule_metric").notNull(),
    /** The distinct modalities of the usage counted here ("" when none), sorted. */
    modalities: text("modalities").array().notNull(),
    ...rollupSums(),
  },
  (t) => [rollupKey("usage_daily_mid_dims_key", t, t.isJailbreak, t.hasGroundTruth, t.ruleMetric)],
);

/**
 * Per-day sums of the usage events that name an eval run, one row per organization, UTC day and
 * run: the Eval Runs list groups a cycle's rows of it instead of the cycle's events. Written in the
 * same transaction as usage_daily by every writer of usage (server/metering/shared/run-rollup.ts), so its
 * sums are always the events' own. The texts are the least of the day's events (as min() over the
 * events in the database's collation), so the least over a cycle's days is the events' min().
 */
export const usageRunDaily = pgTable(
  "usage_run_daily",
  {
    organizationUuid: text("organization_uuid").notNull(),
    /** UTC day of occurred_at. */
    day: dateText("day").notNull(),
    evalRunUuid: text("eval_run_uuid").notNull(),
    firstAt: timestamptz("first_at").notNull(),
    lastAt: timestamptz("last_at").notNull(),
    ...rollupSums(),
    name: text("name"),
    evalUuid: text("eval_uuid"),
    evalType: text("eval_type").notNull(),
    /** The least workspace uuid as text (uuid has no min()); null when no event had one. */
    workspaceUuid: text("workspace_uuid"),
  },
  (t) => [
    // Leads with (organization, day): a cycle's rows are one range of the key.
    primaryKey({ name: "usage_run_daily_pkey", columns: [t.organizationUuid, t.day, t.evalRunUuid] }),
  ],
);

/**
 * A counter per organization, raised in every transaction that changes its usage rollups: the
 * usage caches key their entries with it, so a committed ingestion is seen by the next read in
 * every API process.
 */
export const usageVersions = pgTable("usage_versions", {
  organizationUuid: text("organization_uuid").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull(),
});
