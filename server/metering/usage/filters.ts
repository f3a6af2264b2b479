/**
 * Pure rules behind the usage queries: which records a filter set keeps, chart bucket starts, and
 * the top-N lists of the usage summary. The SQL in usage-sql.ts mirrors `keepsRecord` exactly.
 */

import { evalTypeGroup } from "../../../contract/eval-types";
import { NO_USAGE_FILTERS, type UsageFilterSet } from "../../../contract/usage-query";
import type { Grouping } from "../../../contract/usage-schemas";
import { addUtc, type CalendarUnit, floorUtc, utcDay } from "../../../contract/utc-calendar";

/** The shared filter set plus search; modalities arrive lower-cased. */
export type UsageFilters = UsageFilterSet & {
  /** Case-insensitive substring over the text and number columns; forces raw events. */
  search: string | null;
  /** One eval run's events only (exact eval_run_uuid); forces raw events, as the rollups have no run. */
  evalRun?: string | null;
  /** The events one price rule (one version) priced only; forces raw events, as the rollups have no rule. */
  priceRule?: string | null;
};

export const NO_FILTERS: UsageFilters = { ...NO_USAGE_FILTERS, search: null };

/** The dimensions a filter looks at; "" or null means the record has no value. */
export type FilterableRecord = {
  workspaceUuid: string | null;
  evalType: string;
  operation: string;
  modality: string;
  isJailbreak: boolean;
  hasGroundTruth: boolean;
};

/** A set filter hides a record only when the record has a value and it is not among the chosen ones. */
const keptBySet = (chosen: readonly string[], value: string | null) =>
  chosen.length === 0 || !value || chosen.includes(value);

/**
 * Whether a record survives the filters (search aside): a record is hidden only when a filter is
 * set and the record's own value is present and not matching; for the two boolean filters any
 * mismatch hides it. Records without a workspace stay visible under a workspace filter.
 */
export function keepsRecord(r: FilterableRecord, f: UsageFilters): boolean {
  if (!keptBySet(f.workspaceUuids, r.workspaceUuid)) return false;
  if (!keptBySet(f.evalTypes.map(evalTypeGroup), evalTypeGroup(r.evalType))) return false;
  if (!keptBySet(f.operations, r.operation)) return false;
  if (!keptBySet(f.modalities, r.modality.toLowerCase())) return false;
  if (f.groundTruth === "with" && !r.hasGroundTruth) return false;
  if (f.groundTruth === "without" && r.hasGroundTruth) return false;
  if (f.jailbreak === "only" && !r.isJailbreak) return false;
  if (f.jailbreak === "non" && r.isJailbreak) return false;
  return true;
}

/** True when any filter (search included) is set. */
export function hasFilters(f: UsageFilters): boolean {
  return (
    f.workspaceUuids.length > 0 ||
    f.evalTypes.length > 0 ||
    f.operations.length > 0 ||
    f.modalities.length > 0 ||
    f.groundTruth !== null ||
    f.jailbreak !== null ||
    !!f.search ||
    !!f.evalRun ||
    !!f.priceRule
  );
}

/**
 * Whether the filters need the raw events (a search, one run or one price rule): the rollups cannot
 * answer them.
 */
export const readsRawEvents = (f: UsageFilters) => !!f.search || !!f.evalRun || !!f.priceRule;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(day: string): Date {
  if (!DAY.test(day)) throw new RangeError(`"${day}" is not a YYYY-MM-DD day`);
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== day)
    throw new RangeError(`"${day}" is not a real day`);
  return d;
}

/** The calendar unit of each series grouping. */
export const GROUPING_UNIT = { daily: "day", weekly: "week", monthly: "month" } as const satisfies Record<
  Grouping,
  CalendarUnit
>;

/** The first day of the bucket holding `day` (UTC): itself, the Sunday before it, or the 1st. */
export const bucketStart = (day: string, grouping: Grouping): string =>
  utcDay(floorUtc(parseDay(day), GROUPING_UNIT[grouping]));

/** The first day of the next bucket after the one starting on `start`. */
export const nextBucket = (start: string, grouping: Grouping): string =>
  utcDay(addUtc(parseDay(start), GROUPING_UNIT[grouping]));

/** Every bucket start from the bucket of `first` through the bucket of `last` (inclusive days). */
export function bucketStarts(first: string, last: string, grouping: Grouping): string[] {
  const out: string[] = [];
  const end = bucketStart(last, grouping);
  for (let b = bucketStart(first, grouping); b <= end; b = nextBucket(b, grouping)) out.push(b);
  return out;
}

/** The first of the month (UTC) of an instant, "YYYY-MM-01". */
export const monthStart = (d: Date) => utcDay(floorUtc(d, "month"));

/** The day before a day, "YYYY-MM-DD". */
export const previousDay = (day: string) => utcDay(addUtc(parseDay(day), "day", -1));

export type CostRow = { key: string | null; events: number; quantity: number; costMicros: bigint };

const byCostDesc = (a: CostRow, b: CostRow) =>
  a.costMicros === b.costMicros
    ? b.quantity - a.quantity || String(a.key).localeCompare(String(b.key))
    : a.costMicros > b.costMicros
      ? -1
      : 1;

/** The `n` rows of highest cost (ties: more quantity, then key), rows with a null key left out. */
export function topByCost(rows: readonly CostRow[], n: number): CostRow[] {
  return rows
    .filter((r) => r.key !== null)
    .sort(byCostDesc)
    .slice(0, n);
}

/**
 * The summary's By Workspace list: the top `n` workspaces by cost, then one row (key null) for
 * usage without a workspace when there is any.
 */
export function topWorkspaces(rows: readonly CostRow[], n = 6): CostRow[] {
  const top = topByCost(rows, n);
  const none = rows.filter((r) => r.key === null);
  if (!none.length) return top;
  const merged: CostRow = { key: null, events: 0, quantity: 0, costMicros: 0n };
  for (const r of none) {
    merged.events += r.events;
    merged.quantity += r.quantity;
    merged.costMicros += r.costMicros;
  }
  return [...top, merged];
}
