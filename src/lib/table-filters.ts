// Refine's table filters as the console's filter forms write and read them. Filters live in the
// address (Refine's syncWithLocation), so a control opens with what the address carries and a
// cleared control removes its filter instead of leaving an empty one in the URL.
import { type CrudFilter, type CrudOperators, getDefaultFilter } from "@refinedev/core";

/** Longer searches are cut: no run, key or name is this long, and the URL stays readable. */
export const MAX_SEARCH_LENGTH = 200;

/** The text a search field sends: trimmed and bounded; "" for anything that is not text. */
export function searchText(value: unknown): string {
  return typeof value === "string" ? value.trim().slice(0, MAX_SEARCH_LENGTH) : "";
}

/**
 * A filter on `field` for a form value. An empty value becomes `undefined`, which Refine reads
 * as "no filter on this field" and drops, so clearing a control clears the address too.
 */
export function formFilter(
  field: string,
  operator: Exclude<CrudOperators, "or" | "and">,
  value: unknown,
): CrudFilter {
  const empty =
    value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);
  return { field, operator, value: empty ? undefined : value };
}

/** A "contains" search on `field` for the text typed. */
export const searchFilter = (field: string, typed: unknown): CrudFilter =>
  formFilter(field, "contains", searchText(typed));

/** The text of the filter on `field` ("" when there is none), e.g. to seed a search box. */
export function filterText(
  filters: CrudFilter[],
  field: string,
  operator: CrudOperators = "contains",
): string {
  const value = getDefaultFilter(field, filters, operator);
  return typeof value === "string" ? value : "";
}

/** The values of the filter on `field` ([] when there is none); one value read from a URL counts. */
export function filterList(filters: CrudFilter[], field: string, operator: CrudOperators = "in"): string[] {
  const value = getDefaultFilter(field, filters, operator);
  if (Array.isArray(value)) return value.map(String);
  return typeof value === "string" && value !== "" ? [value] : [];
}
