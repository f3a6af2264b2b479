// The Billing & Usage page's answers (Usage Summary, the time series) shaped from the page data
// the database computed once (usage-aggregates.ts): plain functions, no I/O.

import { evalTypeGroup } from "../../../contract/eval-types";
import { formatUsdExact } from "../../../contract/money";
import type { Grouping, UsageSeries, UsageSummary } from "../../../contract/usage-schemas";
import { addUtc, dayStart, unitsSpanned, utcDay } from "../../../contract/utc-calendar";
import { type Cycle, cycleBounds } from "../billing/cycles";
import {
  type BucketRow,
  type OperationRow,
  type PageData,
  type RawOptions,
  type Sums,
  ZERO,
} from "./aggregates";
import { bucketStart, bucketStarts, type CostRow, GROUPING_UNIT, topByCost, topWorkspaces } from "./filters";
import { NO_WORKSPACE, UNKNOWN_WORKSPACE } from "./sql";

const json = (s: Sums) => ({ events: s.events, count: s.quantity, cost: formatUsdExact(s.costMicros) });
const add = (a: Sums, b: Sums): Sums => ({
  events: a.events + b.events,
  quantity: a.quantity + b.quantity,
  costMicros: a.costMicros + b.costMicros,
});

/** Sums per key (keys in first-seen order). */
function sumBy<T>(rows: readonly T[], keyOf: (r: T) => string | null, sums: (r: T) => Sums): CostRow[] {
  const m = new Map<string | null, CostRow>();
  for (const r of rows) {
    const key = keyOf(r);
    const s = sums(r);
    const c = m.get(key) ?? { key, events: 0, quantity: 0, costMicros: 0n };
    c.events += s.events;
    c.quantity += s.quantity;
    c.costMicros += s.costMicros;
    m.set(key, c);
  }
  return [...m.values()];
}

const costRowSums = (c: CostRow): Sums => ({
  events: c.events,
  quantity: c.quantity,
  costMicros: c.costMicros,
});

/** A lookup of adjustment sums per key, as JSON (zero when the key has none). */
function adjustmentsBy<T>(rows: readonly T[], keyOf: (r: T) => string | null, sums: (r: T) => Sums) {
  const m = new Map(sumBy(rows, keyOf, sums).map((c) => [c.key, costRowSums(c)]));
  return (key: string | null) => json(m.get(key) ?? ZERO);
}

const SEP = "\u0000";
const operationKey = (r: OperationRow) => `${r.operation}${SEP}${r.ruleMetric}`;

/** The Usage Summary card plus the filter options present in the cycle (workspace names given). */
export function summaryOf(
  cycle: Cycle,
  data: PageData,
  options: RawOptions,
  names: ReadonlyMap<string, string>,
  now = new Date(),
): UsageSummary {
  const rowSums = (r: { sums: Sums }) => r.sums;
  const groupOf = (r: BucketRow) => evalTypeGroup(r.evalType);
  const adjustedOperation = adjustmentsBy(data.adjusted.byOperation, operationKey, rowSums);
  // Eval types are counted and ranked by group (accuracy and hallucination as one).
  const adjustedEvalType = adjustmentsBy(data.adjusted.series, groupOf, rowSums);
  const adjustedWorkspace = adjustmentsBy(data.adjusted.byWorkspace, (r) => r.workspaceUuid, rowSums);
  const nameOf = (id: string | null) => (id === null ? NO_WORKSPACE : (names.get(id) ?? UNKNOWN_WORKSPACE));
  const adjustedTotal = add(data.adjusted.credits, data.adjusted.charges);
  return {
    billing_cycle_uuid: cycle.billingCycleUuid,
    data_as_of: now.toISOString(),
    totals: json(data.totals),
    // Credits and other price adjustments included in the sums above (every row's `adjustments`
    // is the part of its sums that is adjustments): usage alone is the sum minus adjustments.
    adjustments: json(adjustedTotal),
    // The same adjustments split into credits (negative) and charges (positive).
    credits: json(data.adjusted.credits),
    charges: json(data.adjusted.charges),
    by_operation: sumBy(data.byOperation, operationKey, rowSums)
      .sort((a, b) => String(a.key).localeCompare(String(b.key)))
      .map((c) => {
        const [operation = "", ruleMetric = ""] = String(c.key).split(SEP);
        return {
          operation,
          rule_metric: ruleMetric,
          ...json(costRowSums(c)),
          adjustments: adjustedOperation(c.key),
        };
      }),
    by_workspace: topWorkspaces(
      sumBy(data.byWorkspace, (r) => r.workspaceUuid, rowSums),
      6,
    ).map((c) => ({
      workspace_uuid: c.key,
      workspace_name: nameOf(c.key),
      ...json(costRowSums(c)),
      adjustments: adjustedWorkspace(c.key),
    })),
    by_eval_type: topByCost(sumBy(data.series, groupOf, rowSums), 5).map((c) => ({
      eval_type: String(c.key),
      ...json(costRowSums(c)),
      adjustments: adjustedEvalType(c.key),
    })),
    filter_options: {
      eval_types: [...new Set(options.evalTypes.map(evalTypeGroup).filter((v) => v !== ""))].sort(),
      operations: options.operations,
      modalities: options.modalities,
      workspaces: options.workspaces.map((id) => ({ workspace_uuid: id, workspace_name: nameOf(id) })),
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

/** How many buckets bucketStarts(first, last, grouping) has, by arithmetic (no list is built). */
export function bucketCount(first: string, last: string, grouping: Grouping): number {
  if (last < first) return 0;
  return unitsSpanned(
    dayStart(bucketStart(first, grouping)),
    dayStart(bucketStart(last, grouping)),
    GROUPING_UNIT[grouping],
  );
}

/**
 * The series' last day before any usage is read: the cycle's last day, or today for the current
 * cycle. Throws SeriesTooLong when the span already has too many buckets.
 */
export function seriesLastDay(cycle: Cycle, grouping: Grouping, now = new Date()): string {
  const { end } = cycleBounds(cycle);
  const last = end ? utcDay(addUtc(end, "day", -1)) : utcDay(now);
  const n = bucketCount(cycle.startDate, last, grouping);
  if (n > MAX_SERIES_BUCKETS) throw new SeriesTooLong(n, grouping);
  return last;
}

/**
 * Cost and usage over time: one bucket per day, week (from Sunday) or month (from the 1st), UTC,
 * from the cycle's first bucket through its last day (the current cycle: through today or its
 * latest usage), empty buckets included. At most MAX_SERIES_BUCKETS: a longer span throws
 * SeriesTooLong (checked before the usage is read by seriesLastDay, and here with the latest
 * usage day). `data` must be computed for the same grouping.
 */
export function seriesOf(cycle: Cycle, data: PageData, grouping: Grouping, now = new Date()): UsageSeries {
  let last = seriesLastDay(cycle, grouping, now);
  if (data.lastDay && data.lastDay > last) last = data.lastDay;
  const n = bucketCount(cycle.startDate, last, grouping);
  if (n > MAX_SERIES_BUCKETS) throw new SeriesTooLong(n, grouping);
  const first = [cycle.startDate, last].sort()[0] ?? last;
  type Bucket = { sums: Sums; types: Map<string, Sums>; adjusted: Map<string, Sums> };
  const buckets = new Map<string, Bucket>();
  for (const b of bucketStarts(first, last, grouping))
    buckets.set(b, { sums: ZERO, types: new Map(), adjusted: new Map() });
  // Per eval type group, as the summary counts them.
  const into = (m: Map<string, Sums>, r: BucketRow) => {
    const group = evalTypeGroup(r.evalType);
    m.set(group, add(m.get(group) ?? ZERO, r.sums));
  };
  for (const r of data.series) {
    const b = buckets.get(r.bucket);
    if (!b) continue;
    b.sums = add(b.sums, r.sums);
    into(b.types, r);
  }
  for (const r of data.adjusted.series) {
    const b = buckets.get(r.bucket);
    if (b) into(b.adjusted, r);
  }
  const seriesJson = (s: Sums | undefined) => {
    const v = s ?? ZERO;
    return { events: v.events, count: v.quantity, price: formatUsdExact(v.costMicros) };
  };
  return {
    billing_cycle_uuid: cycle.billingCycleUuid,
    grouping,
    buckets: [...buckets.entries()].map(([date, b]) => ({
      date,
      events: b.sums.events,
      total_count: b.sums.quantity,
      total_price: formatUsdExact(b.sums.costMicros),
      // The part of the bucket's sums that is credits and other price adjustments.
      adjustments: seriesJson([...b.adjusted.values()].reduce(add, ZERO)),
      eval_types: [...b.types.entries()]
        .sort(([x], [y]) => x.localeCompare(y))
        .map(([evalType, s]) => ({
          eval_type: evalType,
          events: s.events,
          count: s.quantity,
          price: formatUsdExact(s.costMicros),
          adjustments: seriesJson(b.adjusted.get(evalType)),
        })),
    })),
  };
}
