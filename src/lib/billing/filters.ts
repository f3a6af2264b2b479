// The dashboard's filter state and how it becomes query parameters of the usage endpoints.
import type { CrudFilter, CrudSort } from "@refinedev/core";
import {
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

/** Query parameters of /v1/usage/{summary,series,records,export.csv} for a cycle, filters and search. */
export function usageQuery(cycleUuid: string, f: BillingFilters, search = ""): UsageQuery {
  const query: UsageQuery = { billing_cycle_uuid: cycleUuid };
  if (f.workspaceUuids.length) query.workspace_uuid = [...f.workspaceUuids];
  if (f.evalTypes.length) query.eval_type = [...f.evalTypes];
  if (f.operations.length) query.operation = [...f.operations];
  if (f.modalities.length) query.modality = [...f.modalities];
  if (f.groundTruth) query.ground_truth = f.groundTruth;
  if (f.jailbreak) query.jailbreak = f.jailbreak;
  if (search.trim() !== "") query.search = search.trim();
  return query;
}

/** The same parameters as Refine filters, for the records list (the usage-records resource). */
export function usageCrudFilters(cycleUuid: string, f: BillingFilters, search = ""): CrudFilter[] {
  return Object.entries(usageQuery(cycleUuid, f, search)).map(([field, value]) => ({
    field,
    operator: Array.isArray(value) ? "in" : field === "search" ? "contains" : "eq",
    value,
  }));
}

/** Sort keys the records endpoint accepts. */
export const SORTABLE = RECORD_SORT_FIELDS;
export type SortField = RecordSortField;

export const DEFAULT_SORT: CrudSort = { field: "date", order: "desc" };

/** Clicking a header: the sorted column flips direction; another column starts ascending. */
export function nextSort(current: CrudSort | undefined, field: SortField): CrudSort & { field: SortField } {
  if (current?.field === field) return { field, order: current.order === "asc" ? "desc" : "asc" };
  return { field, order: "asc" };
}
