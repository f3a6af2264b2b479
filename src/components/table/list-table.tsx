// The list kit: every list page and card draws its table here, from Refine's useTable answer (the
// table's props and its query), through QueryTable (loading, empty, error with Retry) at the
// console's row size and with one of the console's pagers. Rows are keyed by Refine's `id`, which
// the data providers copy from the resource's `idField`. A list names only what is its own: its
// texts and columns.
import type { TablePaginationConfig, TableProps } from "antd";
import { type ListQuery, QueryTable, type QueryTableProps } from "../feedback/query-table";

/**
 * How the list pages, at a set page size: `false` no pager (the whole list shows); `one` (and
 * `many`) the total counted in the list's own noun ("1 run", "806 runs"); `single` no pager while
 * one page holds the list; `right` at the bottom right on a phone too (Refine centres it there).
 */
export type Pager = false | { one?: string; many?: string; single?: boolean; right?: boolean };

export function pagerOf(
  pagination: TablePaginationConfig | false | undefined,
  pager: Pager | undefined,
): TablePaginationConfig | false | undefined {
  if (pager === undefined) return pagination;
  if (pager === false || pagination === false) return false;
  const { one, many = `${one}s`, single, right } = pager;
  return {
    ...pagination,
    showSizeChanger: false,
    ...(single ? { hideOnSinglePage: true } : {}),
    ...(right ? { position: ["bottomRight"] as TablePaginationConfig["position"] } : {}),
    ...(one ? { showTotal: (total: number) => `${total} ${total === 1 ? one : many}` } : {}),
  };
}

/** What the kit takes of Refine's useTable answer. */
export type TableList<T> = { tableProps: TableProps<T>; tableQuery: ListQuery };

type Props<T> = Omit<QueryTableProps<T>, "query" | "pagination"> & { list: TableList<T>; pager?: Pager };

export function ListTable<T extends object>({ list, pager, ...table }: Props<T>) {
  const { tableProps, tableQuery } = list;
  return (
    <QueryTable<T>
      query={tableQuery}
      rowKey="id"
      size="middle"
      {...tableProps}
      {...table}
      pagination={pagerOf(tableProps.pagination, pager)}
    />
  );
}
