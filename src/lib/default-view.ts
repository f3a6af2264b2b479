// Whether an address holds a list page's default view: nothing, or what its table writes into the
// address for that view as it mounts (Refine's syncWithLocation: its first page at its page size,
// in its default order). A reload, or a link copied from the address bar, carries those parameters;
// they name the same view as the bare address, so its early reads (lib/landing-reads) still apply.
// Read with URLSearchParams: this runs in the entry, before the console's own code has loaded.

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
  if (search === "" || search === "?") return true;
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
