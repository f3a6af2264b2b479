// The billing view (period, workspaces, filters, chart toggles, records search, sort and page) as
// URL search parameters, so a reload or a shared link opens the same view. Reading is tolerant: a
// value the page could not use (hand-edited, stale, from an older console) reads as the default,
// so a bad link never breaks the page or makes the API answer 400 on every render.
import type { CrudSort } from "@refinedev/core";
import type { Grouping } from "../../../contract/usage-schemas";
import type { ChartMetric } from "./chart";
import { type BillingFilters, DEFAULT_SORT, EMPTY_FILTERS, SORTABLE, type SortField } from "./filters";

export type BillingView = {
  /** The chosen billing cycle; null is the latest (a cycle that no longer exists reads as latest too). */
  cycleUuid: string | null;
  filters: BillingFilters;
  grouping: Grouping;
  metric: ChartMetric;
  search: string;
  sort: CrudSort & { field: SortField };
  page: number;
};

export const DEFAULT_VIEW: BillingView = {
  cycleUuid: null,
  filters: EMPTY_FILTERS,
  grouping: "daily",
  metric: "cost",
  search: "",
  sort: { field: "date", order: "desc" },
  page: 1,
};

/** The URL's parameter names. */
const KEY = {
  cycleUuid: "period",
  workspaceUuids: "workspace",
  evalTypes: "eval_type",
  operations: "operation",
  modalities: "modality",
  groundTruth: "ground_truth",
  jailbreak: "jailbreak",
  grouping: "grouping",
  metric: "metric",
  search: "search",
  sort: "sort",
  page: "page",
} as const;

// The API's own limits (longer text or a page past them is refused with a 400).
const MAX_TEXT = 200;
const MAX_PAGE = 1_000_000;
const MAX_VALUES = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const oneOf = <T extends string>(value: string | null, allowed: readonly T[], fallback: T): T =>
  allowed.includes(value as T) ? (value as T) : fallback;

/** A repeated parameter's distinct values (after `normal`) that pass `valid`, in the URL's order. */
function list(
  params: URLSearchParams,
  key: string,
  valid: (value: string) => boolean,
  normal = (value: string) => value,
): string[] {
  const values = params.getAll(key).map((v) => normal(v.trim()));
  return [...new Set(values.filter((v) => v !== "" && valid(v)))].slice(0, MAX_VALUES);
}

const isUuid = (value: string) => UUID.test(value);
const isLabel = (value: string) => value.length <= MAX_TEXT;

function readSort(value: string | null): BillingView["sort"] {
  if (!value) return DEFAULT_VIEW.sort;
  const desc = value.startsWith("-");
  const field = desc ? value.slice(1) : value;
  if (!(SORTABLE as readonly string[]).includes(field)) return DEFAULT_VIEW.sort;
  return { field: field as SortField, order: desc ? "desc" : "asc" };
}

function readPage(value: string | null): number {
  if (!value || !/^\d{1,7}$/.test(value)) return 1;
  const page = Number(value);
  return page >= 1 && page <= MAX_PAGE ? page : 1;
}

/** The view a URL's search parameters describe; anything unusable is the default. */
export function parseBillingView(params: URLSearchParams): BillingView {
  const cycle = params.get(KEY.cycleUuid)?.trim() ?? "";
  const groundTruth = params.get(KEY.groundTruth);
  const jailbreak = params.get(KEY.jailbreak);
  return {
    cycleUuid: isUuid(cycle) ? cycle.toLowerCase() : null,
    filters: {
      workspaceUuids: list(params, KEY.workspaceUuids, isUuid, (v) => v.toLowerCase()),
      evalTypes: list(params, KEY.evalTypes, isLabel),
      operations: list(params, KEY.operations, isLabel),
      modalities: list(params, KEY.modalities, isLabel),
      groundTruth: groundTruth === "with" || groundTruth === "without" ? groundTruth : null,
      jailbreak: jailbreak === "only" || jailbreak === "non" ? jailbreak : null,
    },
    grouping: oneOf(params.get(KEY.grouping), ["daily", "weekly", "monthly"], DEFAULT_VIEW.grouping),
    metric: oneOf(params.get(KEY.metric), ["cost", "usage"], DEFAULT_VIEW.metric),
    search: (params.get(KEY.search) ?? "").trim().slice(0, MAX_TEXT),
    sort: readSort(params.get(KEY.sort)),
    page: readPage(params.get(KEY.page)),
  };
}

/**
 * `params` with the view written over its billing parameters; other parameters stay as they are.
 * Defaults are left out, so the plain page's address stays "/".
 */
export function writeBillingView(view: BillingView, params = new URLSearchParams()): URLSearchParams {
  const out = new URLSearchParams(params);
  for (const key of Object.values(KEY)) out.delete(key);
  const f = view.filters;
  if (view.cycleUuid) out.set(KEY.cycleUuid, view.cycleUuid);
  for (const v of f.workspaceUuids) out.append(KEY.workspaceUuids, v);
  for (const v of f.evalTypes) out.append(KEY.evalTypes, v);
  for (const v of f.operations) out.append(KEY.operations, v);
  for (const v of f.modalities) out.append(KEY.modalities, v);
  if (f.groundTruth) out.set(KEY.groundTruth, f.groundTruth);
  if (f.jailbreak) out.set(KEY.jailbreak, f.jailbreak);
  if (view.grouping !== DEFAULT_VIEW.grouping) out.set(KEY.grouping, view.grouping);
  if (view.metric !== DEFAULT_VIEW.metric) out.set(KEY.metric, view.metric);
  if (view.search) out.set(KEY.search, view.search);
  if (view.sort.field !== DEFAULT_SORT.field || view.sort.order !== DEFAULT_SORT.order) {
    out.set(KEY.sort, `${view.sort.order === "desc" ? "-" : ""}${view.sort.field}`);
  }
  if (view.page > 1) out.set(KEY.page, String(view.page));
  return out;
}
