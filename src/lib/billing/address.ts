// The billing page's address as a link opens it. The records table reads its page, sort and filters
// from the address once, when it mounts (Refine's syncWithLocation), and sends them as they are;
// links from before it did (`?search=…&sort=-cost&page=2&eval_type=…`) and hand-edited ones are
// first rewritten here, once, into the address the page itself would have written.
import { type CrudSort, parseTableParams } from "@refinedev/core";
import { type FilterField, filtersOfTable, readFilters, readSort, recordFilters } from "./filters";
import { RECORDS_PAGE_SIZE } from "./paging";
import { parseBillingView, viewQuery } from "./view-url";

/** The parameters older links carried the records' state in, by filter (the rest: page, sort). */
const OLD_FILTER_KEYS: Record<FilterField, string> = {
  workspace_uuid: "workspace",
  eval_type: "eval_type",
  operation: "operation",
  modality: "modality",
  ground_truth: "ground_truth",
  jailbreak: "jailbreak",
  search: "search",
};
const OLD_KEYS = [...Object.values(OLD_FILTER_KEYS), "sort", "page"];
/** Refine's table parameters (syncWithLocation), by their name before any "[". */
const TABLE_KEYS = ["currentPage", "pageSize", "sorters", "filters"];
const LISTS: readonly string[] = ["workspace", "eval_type", "operation", "modality"];

// The API refuses a page past this with a 400.
const MAX_PAGE = 1_000_000;

/** A page number from an address: a whole number from 1, else null. */
function readPage(value: unknown): number | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const text = String(value);
  if (!/^\d{1,7}$/.test(text)) return null;
  const page = Number(text);
  return page >= 1 && page <= MAX_PAGE ? page : null;
}

/** The records sort of an older link's `sort` ("cost", "-cost"). */
function oldSort(value: string): CrudSort {
  const desc = value.startsWith("-");
  return readSort([{ field: desc ? value.slice(1) : value, order: desc ? "desc" : "asc" }]);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const keyRoot = (key: string) => key.split("[")[0] ?? key;

/**
 * The query an address should be replaced with before the records table reads it (old parameter
 * names translated, unusable values dropped, other parameters kept), or null when the address
 * can be used as it is.
 */
export function fixBillingAddress(search: string): Record<string, unknown> | null {
  const params = new URLSearchParams(search);
  const refine = parseTableParams(search.startsWith("?") ? search : `?${search}`);
  let usable = !OLD_KEYS.some((key) => params.has(key));

  const view = parseBillingView(params);
  const viewParams = viewQuery(view);
  for (const [name, value] of Object.entries(viewParams)) {
    if (params.has(name) && params.get(name) !== value) usable = false;
  }

  // Refine's parameters as the address has them (parseTableParams makes numbers of them).
  const current = params.get("currentPage");
  const currentPage = readPage(params.get("page") ?? current ?? 1) ?? 1;
  if (current !== null && readPage(current) === null) usable = false;
  const pageSize = params.get("pageSize");
  if (pageSize !== null && pageSize !== String(RECORDS_PAGE_SIZE)) usable = false;

  const oldSortValue = params.get("sort");
  const sort = oldSortValue !== null ? oldSort(oldSortValue) : readSort(refine.parsedSorter);
  if (refine.parsedSorter.length > 0 && !same(refine.parsedSorter, [sort])) usable = false;

  const oldFilters = Object.values(OLD_FILTER_KEYS).some((key) => params.has(key));
  const { filters, search: text } = oldFilters
    ? readFilters((field) => {
        const key = OLD_FILTER_KEYS[field];
        return LISTS.includes(key) ? params.getAll(key) : params.get(key);
      })
    : filtersOfTable(refine.parsedFilters);
  const crudFilters = recordFilters(filters, text);
  if (!same(refine.parsedFilters, crudFilters)) usable = false;

  if (usable) return null;
  const others: Record<string, string> = {};
  for (const [key, value] of params) {
    const root = keyRoot(key);
    if (OLD_KEYS.includes(root) || TABLE_KEYS.includes(root) || root in viewParams || key in others) continue;
    others[key] = value;
  }
  return {
    ...others,
    ...viewParams,
    currentPage,
    pageSize: RECORDS_PAGE_SIZE,
    sorters: [sort],
    filters: crudFilters,
  };
}
