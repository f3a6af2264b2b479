// Refine's antd useTable as the console's lists use it: paged and filtered by the server (filters
// through the search form's onSearch), unsorted unless a page asks, and errors shown in the page
// (QueryTable) rather than as a toast. Page, sort and filters live in the URL (the app's
// syncWithLocation), so a list opens where its link points.
import { useTable, type useTableProps } from "@refinedev/antd";
import type { BaseRecord, HttpError } from "@refinedev/core";

type Props<T extends BaseRecord, V> = Omit<useTableProps<T, HttpError, V, T>, "pagination"> & {
  pageSize: number;
  /** "client" when the API answers every row and the table pages them. */
  paging?: "server" | "client";
};

export function useListTable<T extends BaseRecord, V = unknown>({
  pageSize,
  paging = "server",
  sorters = { mode: "off" },
  filters = { mode: "server" },
  errorNotification = false,
  ...rest
}: Props<T, V>) {
  return useTable<T, HttpError, V>({
    ...rest,
    pagination: { currentPage: 1, pageSize, mode: paging },
    sorters,
    filters,
    errorNotification,
  });
}
