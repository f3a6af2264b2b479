// Usage Summary and the time series, read from the daily rollups (raw events only for search).
import { and, eq, type SQL, sql } from "drizzle-orm";
import { evalTypeGroup } from "../../contract/eval-types";
import { formatUsdExact } from "../../contract/money";
import type { Grouping, UsageSeries, UsageSummary } from "../../contract/usage-schemas";
import { usageDaily, usageEvents, workspaces } from "../db/schema";
import type { Db } from "../platform/database";
import { type Cycle, cycleBounds, dailyInCycle } from "./cycles";
import {
  bucketStart,
  bucketStarts,
  type CostRow,
  topByCost,
  topWorkspaces,
  type UsageFilters,
} from "./filters";
import {
  dailyDims,
  dimensionFilter,
  eventWhere,
  NO_WORKSPACE,
  UNKNOWN_WORKSPACE,
  workspaceJoin,
  workspaceMatches,
} from "./usage-sql";

type AggRow = {
  day: string;
  workspaceUuid: string | null;
  operation: string;
  evalType: string;
  modality: string;
  ruleMetric: string;
  events: number;
  quantity: number;
  costMicros: bigint;
  /** Adjustments only: the rows are credits (negative costs). */
  credit?: boolean;
};

/** The raw events' sums per UTC day and dimensions: the rollup's columns, computed from usage_events. */
const eventSums = {
  day: sql<string>`((${usageEvents.occurredAt} at time zone 'UTC')::date)::text`,
  workspaceUuid: usageEvents.workspaceUuid,
  operation: usageEvents.operation,
  evalType: usageEvents.evalType,
  modality: usageEvents.modality,
  ruleMetric: usageEvents.ruleMetric,
  events: sql<string>`count(*)::text`,
  quantity: sql<string>`sum(${usageEvents.quantity})::text`,
  cost: sql<string>`sum(${usageEvents.costMicros})::text`,
};

type SumsRow = Omit<AggRow, "events" | "quantity" | "costMicros" | "credit"> & {
  events: string;
  quantity: string;
  cost: string;
};

/** A row of sums as the database answers it (counts and money as text), as numbers. */
const aggRow = (r: SumsRow): AggRow => ({
  day: r.day,
  workspaceUuid: r.workspaceUuid,
  operation: r.operation,
  evalType: r.evalType,
  modality: r.modality,
  ruleMetric: r.ruleMetric,
  events: Number(r.events),
  quantity: Number(r.quantity),
  costMicros: BigInt(r.cost),
});

/**
 * The raw events a call reads (cycle, filters and search). Built once per call: a search first
 * looks up the workspaces whose names it matches, and both readers below share that lookup.
 */
const eventFilter = async (db: Db, cycle: Cycle, f: UsageFilters) =>
  eventWhere(cycle, f, await workspaceMatches(db, cycle.organizationUuid, f.search));

/**
 * Sums per day and dimensions of the cycle's usage after filtering: from usage_daily, or from the
 * raw events (`events`, see eventFilter) when a search text is given (the rollup has no text to
 * search).
 */
async function aggregate(db: Db, cycle: Cycle, f: UsageFilters, events: SQL | undefined): Promise<AggRow[]> {
  const rows = f.search
    ? await db
        .select(eventSums)
        .from(usageEvents)
        .leftJoin(workspaces, workspaceJoin)
        .where(events)
        .groupBy(sql`1`, sql`2`, sql`3`, sql`4`, sql`5`, sql`6`)
    : await db
        .select({
          day: sql<string>`${usageDaily.day}::text`,
          workspaceUuid: usageDaily.workspaceUuid,
          operation: usageDaily.operation,
          evalType: usageDaily.evalType,
          modality: usageDaily.modality,
          ruleMetric: usageDaily.ruleMetric,
          events: sql<string>`sum(${usageDaily.eventCount})::text`,
          quantity: sql<string>`sum(${usageDaily.quantitySum})::text`,
          cost: sql<string>`sum(${usageDaily.costMicrosSum})::text`,
        })
        .from(usageDaily)
        .where(and(dailyInCycle(cycle), dimensionFilter(dailyDims, f)))
        .groupBy(sql`1`, sql`2`, sql`3`, sql`4`, sql`5`, sql`6`);
  return rows.map(aggRow);
}

/**
 * Price adjustments (credits negative, charges positive) among the same rows: events whose cost
 * is not quantity × unit price, i.e. sent with an explicit cost. Read from the raw events (the
 * rollup does not tell them apart); they are few, and only the cycle's events are scanned.
 */
async function adjustments(db: Db, events: SQL | undefined): Promise<AggRow[]> {
  const rows = await db
    .select({ ...eventSums, credit: sql<boolean>`(${usageEvents.costMicros} < 0)` })
    .from(usageEvents)
    .leftJoin(workspaces, workspaceJoin)
    .where(
      and(
        events,
        // Exactly the predicate of usage_events_adjustments_idx (a partial index), so it serves this.
        sql`(${usageEvents.costMicros} <> ${usageEvents.unitPriceMicros} * ${usageEvents.quantity}) is true`,
      ),
    )
    .groupBy(sql`1`, sql`2`, sql`3`, sql`4`, sql`5`, sql`6`, sql`10`);
  return rows.map((r) => ({
    ...aggRow(r),
    credit: r.credit === true || String(r.credit) === "true" || String(r.credit) === "t",
  }));
}

const NO_SUMS = { events: 0, count: 0, cost: formatUsdExact(0n) };

/** The adjustments' sums per key, as JSON sums (zero when the key has none). */
function adjustmentSums(rows: AggRow[], keyOf: (r: AggRow) => string | null) {
  const m = new Map(sumBy(rows, keyOf).map((c) => [c.key, c]));
  return (key: string | null) => {
    const c = m.get(key);
    return c ? { events: c.events, count: c.quantity, cost: formatUsdExact(c.costMicros) } : NO_SUMS;
  };
}

function sumBy(rows: AggRow[], keyOf: (r: AggRow) => string | null): CostRow[] {
  const m = new Map<string | null, CostRow>();
  for (const r of rows) {
    const key = keyOf(r);
    const c = m.get(key) ?? { key, events: 0, quantity: 0, costMicros: 0n };
    c.events += r.events;
    c.quantity += r.quantity;
    c.costMicros += r.costMicros;
    m.set(key, c);
  }
  return [...m.values()];
}

const totalsOf = (rows: { events: number; quantity: number; costMicros: bigint }[]) => {
  let events = 0;
  let quantity = 0;
  let cost = 0n;
  for (const r of rows) {
    events += r.events;
    quantity += r.quantity;
    cost += r.costMicros;
  }
  return { events, count: quantity, cost: formatUsdExact(cost) };
};

async function workspaceNames(db: Db, organizationUuid: string): Promise<Map<string, string>> {
  const rows = await db
    .select({ id: workspaces.workspaceUuid, name: workspaces.name })
    .from(workspaces)
    .where(eq(workspaces.organizationUuid, organizationUuid));
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The Usage Summary card plus the filter options present in the cycle's data. */
export async function usageSummary(
  db: Db,
  cycle: Cycle,
  f: UsageFilters,
  now = new Date(),
): Promise<UsageSummary> {
  const events = await eventFilter(db, cycle, f);
  const [rows, adjusted, all, names] = [
    await aggregate(db, cycle, f, events),
    await adjustments(db, events),
    await db
      .selectDistinct({
        workspaceUuid: usageDaily.workspaceUuid,
        operation: usageDaily.operation,
        evalType: usageDaily.evalType,
        modality: usageDaily.modality,
      })
      .from(usageDaily)
      .where(dailyInCycle(cycle)),
    await workspaceNames(db, cycle.organizationUuid),
  ];
  const sep = "\u0000";
  const operationKey = (r: AggRow) => `${r.operation}${sep}${r.ruleMetric}`;
  const adjustedOperation = adjustmentSums(adjusted, operationKey);
  // Eval types are counted and ranked by group (accuracy and hallucination as one).
  const evalTypeOf = (r: { evalType: string }) => evalTypeGroup(r.evalType);
  const adjustedEvalType = adjustmentSums(adjusted, evalTypeOf);
  const adjustedWorkspace = adjustmentSums(adjusted, (r) => r.workspaceUuid);
  const byOperation = sumBy(rows, operationKey)
    .sort((a, b) => String(a.key).localeCompare(String(b.key)))
    .map((c) => {
      const [operation = "", ruleMetric = ""] = String(c.key).split(sep);
      return {
        operation,
        rule_metric: ruleMetric,
        events: c.events,
        count: c.quantity,
        cost: formatUsdExact(c.costMicros),
        adjustments: adjustedOperation(c.key),
      };
    });
  const nameOf = (id: string | null) => (id === null ? NO_WORKSPACE : (names.get(id) ?? UNKNOWN_WORKSPACE));
  const costJson = (c: CostRow) => ({
    events: c.events,
    count: c.quantity,
    cost: formatUsdExact(c.costMicros),
  });
  const uniq = (values: string[]) => [...new Set(values.filter((v) => v !== ""))].sort();
  return {
    billing_cycle_uuid: cycle.billingCycleUuid,
    data_as_of: now.toISOString(),
    totals: totalsOf(rows),
    // Credits and other price adjustments included in the sums above (every row's `adjustments`
    // is the part of its sums that is adjustments): usage alone is the sum minus adjustments.
    adjustments: totalsOf(adjusted),
    // The same adjustments split into credits (negative) and charges (positive).
    credits: totalsOf(adjusted.filter((r) => r.credit)),
    charges: totalsOf(adjusted.filter((r) => !r.credit)),
    by_operation: byOperation,
    by_workspace: topWorkspaces(
      sumBy(rows, (r) => r.workspaceUuid),
      6,
    ).map((c) => ({
      workspace_uuid: c.key,
      workspace_name: nameOf(c.key),
      ...costJson(c),
      adjustments: adjustedWorkspace(c.key),
    })),
    by_eval_type: topByCost(sumBy(rows, evalTypeOf), 5).map((c) => ({
      eval_type: String(c.key),
      ...costJson(c),
      adjustments: adjustedEvalType(c.key),
    })),
    filter_options: {
      eval_types: uniq(all.map(evalTypeOf)),
      operations: uniq(all.map((r) => r.operation)),
      modalities: uniq(all.map((r) => r.modality)),
      workspaces: uniq(all.map((r) => r.workspaceUuid ?? "")).map((id) => ({
        workspace_uuid: id,
        workspace_name: nameOf(id),
      })),
    },
  };
}

/** The most buckets one series answer holds (a daily year is 366, a monthly decade 120). */
export const MAX_SERIES_BUCKETS = 1_000;

/** Refused before any row is read: the cycle's span in the grouping has too many buckets. */
export class SeriesTooLong extends Error {
  constructor(
    readonly buckets: number,
    readonly grouping: Grouping,
  ) {
    super(
      `This billing cycle spans ${buckets.toLocaleString("en-US")} ${grouping} buckets; a series holds at ` +
        `most ${MAX_SERIES_BUCKETS.toLocaleString("en-US")}. Use a coarser grouping` +
        `${grouping === "monthly" ? "" : grouping === "weekly" ? " (monthly)" : " (weekly or monthly)"} ` +
        "or a shorter billing cycle.",
    );
  }
}

const DAY_MS = 86_400_000;

/** How many buckets bucketStarts(first, last, grouping) has, by arithmetic (no list is built). */
export function bucketCount(first: string, last: string, grouping: Grouping): number {
  if (last < first) return 0;
  const a = bucketStart(first, grouping);
  const b = bucketStart(last, grouping);
  if (grouping === "monthly") {
    const months = (s: string) => Number(s.slice(0, 4)) * 12 + Number(s.slice(5, 7)) - 1;
    return months(b) - months(a) + 1;
  }
  const days = Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
  return (grouping === "weekly" ? days / 7 : days) + 1;
}

/**
 * Cost and usage over time: one bucket per day, week (from Sunday) or month (from the 1st), UTC,
 * from the cycle's first bucket through its last day (the current cycle: through today or its
 * latest usage), empty buckets included. At most MAX_SERIES_BUCKETS: a longer span throws
 * SeriesTooLong, checked before the usage is read and again with the latest usage day.
 */
export async function usageSeries(
  db: Db,
  cycle: Cycle,
  f: UsageFilters,
  grouping: Grouping,
  now = new Date(),
): Promise<UsageSeries> {
  const { end } = cycleBounds(cycle);
  let last = end
    ? new Date(end.getTime() - DAY_MS).toISOString().slice(0, 10)
    : now.toISOString().slice(0, 10);
  const bounded = (lastDay: string) => {
    const n = bucketCount(cycle.startDate, lastDay, grouping);
    if (n > MAX_SERIES_BUCKETS) throw new SeriesTooLong(n, grouping);
  };
  bounded(last);
  const events = await eventFilter(db, cycle, f);
  const rows = await aggregate(db, cycle, f, events);
  const adjusted = await adjustments(db, events);
  for (const r of rows) if (r.day > last) last = r.day;
  bounded(last);
  const first = [cycle.startDate, last].sort()[0] ?? last;
  type Bucket = {
    events: number;
    quantity: number;
    costMicros: bigint;
    types: Map<string, CostRow>;
    adjusted: Map<string, CostRow>;
  };
  const buckets = new Map<string, Bucket>();
  for (const b of bucketStarts(first, last, grouping))
    buckets.set(b, { events: 0, quantity: 0, costMicros: 0n, types: new Map(), adjusted: new Map() });
  const firstBucket = bucketStart(first, grouping);
  // Per eval type group, as the summary counts them.
  const add = (into: Map<string, CostRow>, r: AggRow) => {
    const group = evalTypeGroup(r.evalType);
    const t = into.get(group) ?? { key: group, events: 0, quantity: 0, costMicros: 0n };
    t.events += r.events;
    t.quantity += r.quantity;
    t.costMicros += r.costMicros;
    into.set(group, t);
  };
  // Days before the cycle cannot occur; they would count in the first bucket.
  const bucketOf = (r: AggRow) => buckets.get(r.day < first ? firstBucket : bucketStart(r.day, grouping));
  for (const r of rows) {
    const b = bucketOf(r);
    if (!b) continue;
    b.events += r.events;
    b.quantity += r.quantity;
    b.costMicros += r.costMicros;
    add(b.types, r);
  }
  for (const r of adjusted) {
    const b = bucketOf(r);
    if (b) add(b.adjusted, r);
  }
  const sumsOf = (c: CostRow | undefined) =>
    c
      ? { events: c.events, count: c.quantity, price: formatUsdExact(c.costMicros) }
      : { events: 0, count: 0, price: formatUsdExact(0n) };
  return {
    billing_cycle_uuid: cycle.billingCycleUuid,
    grouping,
    buckets: [...buckets.entries()].map(([date, b]) => ({
      date,
      events: b.events,
      total_count: b.quantity,
      total_price: formatUsdExact(b.costMicros),
      // The part of the bucket's sums that is credits and other price adjustments.
      adjustments: sumsOf(
        [...b.adjusted.values()].reduce<CostRow>(
          (sum, t) => ({
            key: null,
            events: sum.events + t.events,
            quantity: sum.quantity + t.quantity,
            costMicros: sum.costMicros + t.costMicros,
          }),
          { key: null, events: 0, quantity: 0, costMicros: 0n },
        ),
      ),
      eval_types: [...b.types.values()]
        .sort((x, y) => String(x.key).localeCompare(String(y.key)))
        .map((t) => ({
          eval_type: String(t.key),
          events: t.events,
          count: t.quantity,
          price: formatUsdExact(t.costMicros),
          adjustments: sumsOf(b.adjusted.get(String(t.key))),
        })),
    })),
  };
}
