// What the billing page keeps in the address beside the records table (whose page, sort, filters
// and search are Refine's, synced with the location): the billing period and the chart's toggles.
// Reading is tolerant: a value the page could not use (hand-edited, stale) reads as the default.
import type { Grouping } from "../../../contract/usage-schemas";
import type { ChartMetric } from "./chart";
import { isUuid } from "./filters";

export type BillingView = {
  /** The chosen billing cycle; null is the latest (a cycle that no longer exists reads as latest too). */
  cycleUuid: string | null;
  grouping: Grouping;
  metric: ChartMetric;
};

export const DEFAULT_VIEW: BillingView = { cycleUuid: null, grouping: "daily", metric: "cost" };

/** The address's parameter names. */
export const VIEW_KEYS = { cycleUuid: "period", grouping: "grouping", metric: "metric" } as const;

const GROUPINGS: readonly Grouping[] = ["daily", "weekly", "monthly"];
const METRICS: readonly ChartMetric[] = ["cost", "usage"];

const oneOf = <T extends string>(value: string | null, allowed: readonly T[], fallback: T): T =>
  allowed.includes(value as T) ? (value as T) : fallback;

/** The view an address's search parameters describe; anything unusable is the default. */
export function parseBillingView(params: URLSearchParams): BillingView {
  const cycle = params.get(VIEW_KEYS.cycleUuid)?.trim() ?? "";
  return {
    cycleUuid: isUuid(cycle) ? cycle.toLowerCase() : null,
    grouping: oneOf(params.get(VIEW_KEYS.grouping), GROUPINGS, DEFAULT_VIEW.grouping),
    metric: oneOf(params.get(VIEW_KEYS.metric), METRICS, DEFAULT_VIEW.metric),
  };
}

/** The view as query parameters; a default is `undefined` (left out), so the plain view adds none. */
export function viewQuery(
  view: BillingView,
): Record<(typeof VIEW_KEYS)[keyof BillingView], string | undefined> {
  return {
    period: view.cycleUuid ?? undefined,
    grouping: view.grouping === DEFAULT_VIEW.grouping ? undefined : view.grouping,
    metric: view.metric === DEFAULT_VIEW.metric ? undefined : view.metric,
  };
}
