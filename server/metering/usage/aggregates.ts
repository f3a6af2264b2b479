// Usage Summary and the time series: what the Billing & Usage page shows, computed by the database
// in one grouping-sets query over a daily rollup (raw events only for search) plus one over the
// adjustments. usage-answers.ts shapes the result into the API's answers.

import { and, type SQL, sql } from "drizzle-orm";
import type { Grouping } from "../../../contract/usage-schemas";
import { floorUtcSql } from "../../../contract/utc-calendar";
import { usageDaily, usageDailyCoarse, usageDailyMid, usageEvents } from "../../db/schema";
import type { Db } from "../../platform/database";
import { type Cycle, dailyInCycle } from "../billing/cycles";
import { GROUPING_UNIT, readsRawEvents, type UsageFilters } from "./filters";
import {
  coarseFilter,
  dailyDims,
  dimensionFilter,
  eventWhere,
  midFilter,
  usesCoarseRollup,
  usesMidRollup,
  type WorkspaceMatches,
} from "./sql";

export type Sums = { events: number; quantity: number; costMicros: bigint };

/** Sums per bucket (first day, YYYY-MM-DD) and raw eval type. */
export type BucketRow = { bucket: string; evalType: string; sums: Sums };
export type OperationRow = { operation: string; ruleMetric: string; sums: Sums };
export type WorkspaceRow = { workspaceUuid: string | null; sums: Sums };

/** The values present in the cycle, whatever the filters (eval types raw, modalities as stored). */
export type RawOptions = {
  evalTypes: string[];
  operations: string[];
  modalities: string[];
  workspaces: string[];
};

/**
 * Everything the page shows for one cycle, filter set and series grouping, before names and
 * formatting: what the usage cache keeps.
 */
export type PageData = {
  totals: Sums;
  /** The latest day with usage among the rows kept (null: none). */
  lastDay: string | null;
  series: BucketRow[];
  byOperation: OperationRow[];
  byWorkspace: WorkspaceRow[];
  /** The part of the sums above that is price adjustments (events sent with an explicit cost). */
  adjusted: {
    series: BucketRow[];
    byOperation: OperationRow[];
    byWorkspace: WorkspaceRow[];
    credits: Sums;
    charges: Sums;
  };
  /** From the same scan when the rollup is read; null after a search (the caller fills them in). */
  options: RawOptions | null;
};

export const ZERO: Sums = { events: 0, quantity: 0, costMicros: 0n };

/** The first day of a row's bucket, in SQL, from a date expression (no bind parameters, so the
 * expression reads the same in GROUP BY and SELECT); weeks from Sunday, as utc-calendar cuts them. */
function bucketSql(day: string, grouping: Grouping): SQL {
  if (grouping === "daily") return sql.raw(day);
  return sql.raw(`${floorUtcSql(`(${day})::timestamp`, GROUPING_UNIT[grouping])}::date`);
}

const EVENT_DAY = `(("usage_events"."occurred_at" at time zone 'UTC')::date)`;

type SetRow = {
  g: number | string;
  bucket: string | null;
  evalType: string | null;
  operation: string | null;
  ruleMetric: string | null;
  workspaceUuid: string | null;
  mods: string[] | string | null;
  credit: boolean | string | null;
  n: number | string;
  events: string;
  quantity: string;
  cost: string;
  lastDay: string | null;
};

const sumsOf = (r: SetRow): Sums => ({
  events: Number(r.events),
  quantity: Number(r.quantity),
  costMicros: BigInt(r.cost),
});

const truthy = (v: unknown) => v === true || v === "t" || v === "true";

/** PostgreSQL's text form of an array (node-postgres parses text[]; PGlite may hand the literal). */
function textArray(v: string[] | string | null): string[] {
  if (v === null) return [];
  if (Array.isArray(v)) return v;
  const inner = v.replace(/^\{|\}$/g, "");
  if (!inner) return [];
  return (inner.match(/("([^"\\]|\\.)*"|[^,]+)/g) ?? []).map((x) =>
    x.startsWith('"') ? x.slice(1, -1).replace(/\\(.)/g, "$1") : x,
  );
}

// grouping(eval_type, operation, workspace_uuid, <4th>): a bit is 1 when the column is not in the
// row's grouping set (eval_type 8, operation 4, workspace_uuid 2, the fourth 1).
const SERIES = 7;
const OPERATION = 11;
const WORKSPACE = 13;
const FOURTH = 14;

/** Splits a grouping-sets answer into its sets (rows of the fourth set go to `fourth`). */
function splitSets(rows: SetRow[], keep: (r: SetRow) => boolean) {
  const series: BucketRow[] = [];
  const byOperation: OperationRow[] = [];
  const byWorkspace: WorkspaceRow[] = [];
  const fourth: SetRow[] = [];
  let total: SetRow | undefined;
  for (const r of rows) {
    const g = Number(r.g);
    if (g === FOURTH) fourth.push(r);
    else if (g === 15) total = r;
    else if (!keep(r)) continue;
    else if (g === SERIES)
      series.push({ bucket: String(r.bucket), evalType: r.evalType ?? "", sums: sumsOf(r) });
    else if (g === OPERATION)
      byOperation.push({ operation: r.operation ?? "", ruleMetric: r.ruleMetric ?? "", sums: sumsOf(r) });
    else if (g === WORKSPACE) byWorkspace.push({ workspaceUuid: r.workspaceUuid, sums: sumsOf(r) });
  }
  return { series, byOperation, byWorkspace, fourth, total, all: rows };
}

/** The rollup's condition for a filter set (undefined: no dimension filter). */
function rollupFilter(f: UsageFilters) {
  return usesCoarseRollup(f)
    ? coarseFilter(f)
    : usesMidRollup(f)
      ? midFilter(f)
      : dimensionFilter(dailyDims, f);
}

/**
 * The rollup's sums for the page, in one scan of the cycle's rows: per bucket and eval type, per
 * operation and rule metric, per workspace, per modality and in total. The coarse rollup when no
 * modality, ground-truth or jailbreak filter is set, the mid rollup when no modality filter is,
 * else usage_daily. Only the rows the filters keep are read and summed (the filters as a WHERE
 * condition: a filtered page keeps a fraction of the cycle's rows, and summing all of them under
 * FILTER clauses made it cost two to three times the unfiltered page at 10M events). Without
 * filters the same scan gives the filter options (the values present in the cycle); with filters
 * they come from optionsQuery.
 */
export function rollupSetsQuery(db: Db, cycle: Cycle, f: UsageFilters, grouping: Grouping) {
  // The smallest rollup that keeps the filtered dimensions: coarse, else mid (modalities kept as
  // a sorted array in both, for the filter options), else usage_daily.
  const coarse = usesCoarseRollup(f);
  const mid = !coarse && usesMidRollup(f);
  const table = coarse ? usageDailyCoarse : mid ? usageDailyMid : usageDaily;
  const kept = rollupFilter(f);
  const rows = db
    .select({
      day: table.day,
      workspaceUuid: table.workspaceUuid,
      operation: table.operation,
      evalType: table.evalType,
      ruleMetric: table.ruleMetric,
      // The modalities only serve the filter options: a filtered page reads those apart, so its
      // modality set is one group.
      mods: (kept
        ? sql`null::text[]`
        : coarse
          ? sql`${usageDailyCoarse.modalities}`
          : mid
            ? sql`${usageDailyMid.modalities}`
            : sql`array[${usageDaily.modality}]`
      ).as("mods"),
      eventCount: table.eventCount,
      quantitySum: table.quantitySum,
      costMicrosSum: table.costMicrosSum,
    })
    .from(table)
    .where(and(dailyInCycle(cycle, table), kept))
    .as("r");
  const col = (name: string) => sql.raw(`"r"."${name}"`);
  const [evalType, operation, workspaceUuid, mods] = ["eval_type", "operation", "workspace_uuid", "mods"].map(
    col,
  );
  const bucket = bucketSql(`"r"."day"`, grouping);
  return db
    .select({
      g: sql<number>`grouping(${evalType}, ${operation}, ${workspaceUuid}, ${mods})`,
      bucket: sql<string | null>`${bucket}::text`,
      evalType: sql<string | null>`${evalType}`,
      operation: sql<string | null>`${operation}`,
      ruleMetric: sql<string | null>`${col("rule_metric")}`,
      workspaceUuid: sql<string | null>`${workspaceUuid}::text`,
      mods: sql<string[] | null>`${mods}`,
      credit: sql<null>`null`,
      n: sql`count(*)`.mapWith(Number),
      events: sql<string>`coalesce(sum(${col("event_count")}), 0)::text`,
      quantity: sql<string>`coalesce(sum(${col("quantity_sum")}), 0)::text`,
      cost: sql<string>`coalesce(sum(${col("cost_micros_sum")}), 0)::text`,
      lastDay: sql<string | null>`(max(${col("day")}))::text`,
    })
    .from(rows)
    .groupBy(
      sql`grouping sets ((${bucket}, ${evalType}), (${operation}, ${col("rule_metric")}), (${workspaceUuid}), (${mods}), ())`,
    );
}

/**
 * The filter options of a cycle (the eval types, operations, workspaces and modalities present,
 * whatever the filters) from the coarse rollup, the smallest, which holds the same values as the
 * others (every writer adds to the three together): rows shaped as rollupSetsQuery's sets.
 */
export function optionsQuery(db: Db, cycle: Cycle) {
  const c = usageDailyCoarse;
  return db
    .select({
      g: sql<number>`grouping(${c.evalType}, ${c.operation}, ${c.workspaceUuid}, ${c.modalities})`,
      evalType: sql<string | null>`${c.evalType}`,
      operation: sql<string | null>`${c.operation}`,
      workspaceUuid: sql<string | null>`${c.workspaceUuid}::text`,
      mods: sql<string[] | null>`${c.modalities}`,
    })
    .from(c)
    .where(dailyInCycle(cycle, c))
    .groupBy(sql`grouping sets ((${c.evalType}), (${c.operation}), (${c.workspaceUuid}), (${c.modalities}))`);
}

type OptionRow = Pick<SetRow, "g" | "evalType" | "operation" | "workspaceUuid" | "mods">;

async function rollupSets(db: Db, cycle: Cycle, f: UsageFilters, grouping: Grouping) {
  const filtered = rollupFilter(f) !== undefined;
  const [rows, optionRows] = await Promise.all([
    rollupSetsQuery(db, cycle, f, grouping) as unknown as Promise<SetRow[]>,
    filtered ? (optionsQuery(db, cycle) as unknown as Promise<OptionRow[]>) : null,
  ]);
  const sets = splitSets(rows, (r) => Number(r.n) > 0);
  const from: OptionRow[] = optionRows ?? rows;
  const uniq = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => !!v))].sort();
  const options: RawOptions = {
    evalTypes: uniq(from.filter((r) => Number(r.g) === SERIES).map((r) => r.evalType)),
    operations: uniq(from.filter((r) => Number(r.g) === OPERATION).map((r) => r.operation)),
    modalities: uniq(from.filter((r) => Number(r.g) === FOURTH).flatMap((r) => textArray(r.mods))),
    workspaces: uniq(from.filter((r) => Number(r.g) === WORKSPACE).map((r) => r.workspaceUuid)),
  };
  return { ...sets, options };
}

/**
 * Sums over raw events in the same sets (the fourth: credit or charge), under `where`: a search
 * (the rollups have no text to search), or the price adjustments among the kept events.
 */
async function eventSets(db: Db, where: SQL | undefined, grouping: Grouping) {
  const e = usageEvents;
  const bucket = bucketSql(EVENT_DAY, grouping);
  const credit = sql.raw(`("usage_events"."cost_micros" < 0)`);
  const rows = (await db
    .select({
      g: sql<number>`grouping(${e.evalType}, ${e.operation}, ${e.workspaceUuid}, ${credit})`,
      bucket: sql<string | null>`${bucket}::text`,
      evalType: e.evalType,
      operation: e.operation,
      ruleMetric: e.ruleMetric,
      workspaceUuid: e.workspaceUuid,
      mods: sql<null>`null`,
      credit: sql<boolean | null>`${credit}`,
      n: sql`count(*)`.mapWith(Number),
      events: sql<string>`count(*)::text`,
      quantity: sql<string>`coalesce(sum(${e.quantity}), 0)::text`,
      cost: sql<string>`coalesce(sum(${e.costMicros}), 0)::text`,
      lastDay: sql<string | null>`max(${sql.raw(EVENT_DAY)})::text`,
    })
    .from(e)
    .where(where)
    .groupBy(
      sql`grouping sets ((${bucket}, ${e.evalType}), (${e.operation}, ${e.ruleMetric}), (${e.workspaceUuid}), (${credit}), ())`,
    )) as unknown as SetRow[];
  return splitSets(rows, (r) => Number(r.n) > 0);
}

/**
 * Computes the page's data for one cycle, filter set and grouping: two queries (the rollup or, with
 * a search, the raw events; and the adjustments, which the rollups do not tell apart: events stored
 * as adjustments, few, read through their partial index).
 */
export async function computePageData(
  db: Db,
  cycle: Cycle,
  f: UsageFilters,
  grouping: Grouping,
  matches: WorkspaceMatches | null,
): Promise<PageData> {
  const events = eventWhere(cycle, f, matches);
  const adjustedWhere = and(
    events,
    // Exactly the predicate of usage_events_adjustment_idx (a partial index), so it serves this.
    sql`${usageEvents.adjustment}`,
  );
  const [main, adjusted] = await Promise.all([
    readsRawEvents(f) ? eventSets(db, events, grouping) : rollupSets(db, cycle, f, grouping),
    eventSets(db, adjustedWhere, grouping),
  ]);
  const creditSums = (want: boolean) =>
    adjusted.fourth.filter((r) => truthy(r.credit) === want && Number(r.n) > 0).map(sumsOf)[0] ?? ZERO;
  return {
    totals: main.total ? sumsOf(main.total) : ZERO,
    lastDay: main.total?.lastDay ?? null,
    series: main.series,
    byOperation: main.byOperation,
    byWorkspace: main.byWorkspace,
    adjusted: {
      series: adjusted.series,
      byOperation: adjusted.byOperation,
      byWorkspace: adjusted.byWorkspace,
      credits: creditSums(true),
      charges: creditSums(false),
    },
    options: "options" in main ? (main.options as RawOptions) : null,
  };
}
