// What the Eval Runs pages show and link: a run's page address (the billing cycle its figures come
// from rides along, so the page shows the same cycle as where it was opened), exact money, and the
// list's filter form as Refine's filters.
import type { CrudFilter } from "@refinedev/core";
import { formatUnitPrice } from "../../contract/money";
import { filterText, formFilter, searchFilter } from "./table-filters";

/** The run page of `run` (an id as the events carry it: any text), for the cycle when given. */
export function evalRunPath(run: string, billingCycleUuid?: string | null): string {
  const path = `/eval-runs/${encodeURIComponent(run)}`;
  return billingCycleUuid ? `${path}?billing_cycle_uuid=${encodeURIComponent(billingCycleUuid)}` : path;
}

/** A cost with every digit the API gives ("$1.3145"), at least two decimals: sums reconcile exactly. */
export const exactMoney = formatUnitPrice;

/**
 * The Eval Runs filter form: what it shows and what it sends. The workspace filter is the
 * Workspace column's (Refine's FilterDropdown), so the form leaves it as it is.
 */
export type EvalRunFilterValues = { search?: string; billing_cycle_uuid?: string };

/** The form's values as Refine's filters (the list endpoint's query parameters). */
export function evalRunFilters(v: EvalRunFilterValues): CrudFilter[] {
  return [searchFilter("search", v.search), formFilter("billing_cycle_uuid", "eq", v.billing_cycle_uuid)];
}

/** The form's values from Refine's filters (as the URL carries them). */
export function evalRunFilterValues(filters: CrudFilter[]): EvalRunFilterValues {
  return {
    search: filterText(filters, "search"),
    billing_cycle_uuid: filterText(filters, "billing_cycle_uuid", "eq") || undefined,
  };
}
