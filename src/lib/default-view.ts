// Whether an address holds a list page's default view: nothing, or what its table writes into the
// address for that view as it mounts (Refine's syncWithLocation: its first page at its page size,
// in its default order). A reload, or a link copied from the address bar, carries those parameters;
// they name the same view as the bare address, so its early reads (lib/landing-reads) still apply.
// Read with URLSearchParams: this runs in the entry, before the console's own code has loaded.
// A bare address is given that view's parameters before the console renders (defaultViewSearch), so
// that the table finds them there and writes nothing.

export type DefaultView = {
  pageSize: number;
  /** The table's default order, when it has one (written as `sorters[0][field]` and `[order]`). */
  sort?: { field: string; order: "asc" | "desc" };
};

const SORT_FIELD = "sorters[0][field]";
const SORT_ORDER = "sorters[0][order]";

/** `search` (location.search) names `view` and nothing else; any other parameter or value is another
 * view, whose reads the page makes itself. */
export function isDefaultView(search: string, view: DefaultView | undefined): boolean {
  if (isBareSearch(search)) return true;
  if (!view) return false;
  const expected = new Map([
    ["currentPage", "1"],
    ["pageSize", String(view.pageSize)],
  ]);
  if (view.sort) {
    expected.set(SORT_FIELD, view.sort.field);
    expected.set(SORT_ORDER, view.sort.order);
  }
  const params = new URLSearchParams(search);
  // Half a sorter is not the default order.
  if (params.has(SORT_FIELD) !== params.has(SORT_ORDER)) return false;
  for (const [key, value] of params) if (expected.get(key) !== value) return false;
  return true;
}

/** Whether `search` holds no parameter at all. */
export const isBareSearch = (search: string) => search === "" || search === "?";

/**
 * `view` as the page's table writes it into the address (`?pageSize=…&currentPage=1`, then its
 * order), character for character: an address that already holds it is one the table leaves as it
 * is, so React Router renders nothing again for it after the first paint (providers/router-provider).
 */
export function defaultViewSearch(view: DefaultView): string {
  const sort = view.sort
    ? `&${SORT_FIELD}=${encodeURIComponent(view.sort.field)}&${SORT_ORDER}=${view.sort.order}`
    : "";
  return `?pageSize=${view.pageSize}&currentPage=1${sort}`;
}
