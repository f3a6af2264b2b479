// The dashboard's filter state and how it becomes query parameters of the usage endpoints.
import { type CrudFilter, type CrudSort, getDefaultFilter } from "@refinedev/core";
import {
  GROUND_TRUTH_VALUES,
  JAILBREAK_VALUES,
  NO_USAGE_FILTERS,
  RECORD_SORT_FIELDS,
  type RecordSortField,
  type UsageFilterSet,
} from "../../../contract/usage-query";

/** The filter bar's state: the usage endpoints' filter set (search is held apart). */
export type BillingFilters = UsageFilterSet;

export const EMPTY_FILTERS: BillingFilters = NO_USAGE_FILTERS;

export const GROUND_TRUTH_OPTIONS = [
  { value: "all", label: "All" },
  { value: "with", label: "With Ground Truth" },
  { value: "without", label: "Without Ground Truth" },
] as const;

export const JAILBREAK_OPTIONS = [
  { value: "all", label: "All" },
  { value: "only", label: "Jailbreak Only" },
  { value: "non", label: "Non-Jailbreak" },
] as const;

/** How many filters of the filter bar are set (the workspace select has its own "All workspaces"). */
export function activeFilterCount(f: BillingFilters): number {
  return (
    (f.evalTypes.length > 0 ? 1 : 0) +
    (f.operations.length > 0 ? 1 : 0) +
    (f.modalities.length > 0 ? 1 : 0) +
    (f.groundTruth ? 1 : 0) +
    (f.jailbreak ? 1 : 0)
  );
}

/** "Clear all (n)", or null when no filter is set (the button is not shown). */
export function clearAllLabel(f: BillingFilters): string | null {
  const n = activeFilterCount(f);
  return n > 0 ? `Clear all (${n})` : null;
}

/** The filter bar cleared; the workspace choice stays. */
export const clearFilterBar = (f: BillingFilters): BillingFilters => ({
  ...EMPTY_FILTERS,
  workspaceUuids: f.workspaceUuids,
});

export type UsageQuery = Record<string, string | string[] | undefined>;

/** The filters and search as the usage endpoints' query parameters (only those set). */
function filterQuery(f: BillingFilters, search = ""): UsageQuery {
  const query: UsageQuery = {};
  if (f.workspaceUuids.length) query.workspace_uuid = [...f.workspaceUuids];
  if (f.evalTypes.length) query.eval_type = [...f.evalTypes];
  if (f.operations.length) query.operation = [...f.operations];
  if (f.modalities.length) query.modality = [...f.modalities];
  if (f.groundTruth) query.ground_truth = f.groundTruth;
  if (f.jailbreak) query.jailbreak = f.jailbreak;
  if (search.trim() !== "") query.search = search.trim();
  return query;
}

/**
 * Query parameters of /v1/usage/{summary,series,records,export.csv} for a cycle (undefined: the
 * API's current one), filters and search.
 */
export function usageQuery(cycleUuid: string | undefined, f: BillingFilters, search = ""): UsageQuery {
  return { billing_cycle_uuid: cycleUuid, ...filterQuery(f, search) };
}

/** Each filter's parameter and Refine operator; the records table holds them as Refine filters. */
const OPERATORS = {
  workspace_uuid: "in",
  eval_type: "in",
  operation: "in",
  modality: "in",
  ground_truth: "eq",
  jailbreak: "eq",
  search: "contains",
} as const;
export type FilterField = keyof typeof OPERATORS;

/** The records table's Refine filters for the filter bar and search: the set ones, in one order. */
export function recordFilters(f: BillingFilters, search = ""): CrudFilter[] {
  return Object.entries(filterQuery(f, search)).map(([field, value]) => ({
    field,
    operator: OPERATORS[field as FilterField],
    value,
  }));
}

// The API's own limits (longer text or more values are refused with a 400).
const MAX_TEXT = 200;
const MAX_VALUES = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => UUID.test(value);
const isLabel = (value: string) => value.length <= MAX_TEXT;

/** A list's distinct usable values (one value read from an address counts as a list of one). */
function list(value: unknown, valid: (v: string) => boolean, normal = (v: string) => v): string[] {
  const values = (Array.isArray(value) ? value : [value]).filter((v) => typeof v === "string");
  const usable = values.map((v) => normal(v.trim())).filter((v) => v !== "" && valid(v));
  return [...new Set(usable)].slice(0, MAX_VALUES);
}

const oneOf = <T extends string>(value: unknown, allowed: readonly T[]): T | null =>
  allowed.includes(value as T) ? (value as T) : null;

/**
 * The filter bar's state and the search from each parameter's raw value (from the table's Refine
 * filters or an address). Tolerant: an unusable value (hand-edited, stale) reads as no filter, so
 * a bad link never makes the API answer 400 on every render.
 */
export function readFilters(raw: (field: FilterField) => unknown): {
  filters: BillingFilters;
  search: string;
} {
  const search = raw("search");
  return {
    filters: {
      workspaceUuids: list(raw("workspace_uuid"), isUuid, (v) => v.toLowerCase()),
      evalTypes: list(raw("eval_type"), isLabel),
      operations: list(raw("operation"), isLabel),
      modalities: list(raw("modality"), isLabel),
      groundTruth: oneOf(raw("ground_truth"), GROUND_TRUTH_VALUES),
      jailbreak: oneOf(raw("jailbreak"), JAILBREAK_VALUES),
    },
    search: typeof search === "string" ? search.trim().slice(0, MAX_TEXT) : "",
  };
}

/** The filter bar's state and the search the records table's Refine filters (or an address's) hold. */
export function filtersOfTable(filters: unknown) {
  const usable = (Array.isArray(filters) ? filters : []).filter(
    (f): f is CrudFilter => typeof f === "object" && f !== null,
  );
  return readFilters((field) => getDefaultFilter(field, usable, OPERATORS[field]));
}

/** Sort keys the records endpoint accepts. */
export const SORTABLE = RECORD_SORT_FIELDS;
export type SortField = RecordSortField;

export const DEFAULT_SORT: CrudSort = { field: "date", order: "desc" };

/** The records' sort from Refine's sorters: one sortable column, else the default. */
export function readSort(sorters: unknown): CrudSort & { field: SortField } {
  const first: unknown = Array.isArray(sorters) && sorters.length === 1 ? sorters[0] : null;
  const { field, order } = (first ?? {}) as Partial<CrudSort>;
  if (SORTABLE.includes(field as SortField) && (order === "asc" || order === "desc")) {
    return { field: field as SortField, order };
  }
  return DEFAULT_SORT as CrudSort & { field: SortField };
}
