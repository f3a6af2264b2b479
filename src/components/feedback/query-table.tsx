// The list block every list page and card shows: the table, an error with Retry when its query
// failed (instead of an empty table that reads as "none"), and its empty state only once the
// query has answered (a blank body while loading, never "No data" before the rows come).
import { Alert, Empty, Table, type TableProps, Typography } from "antd";
import type { ReactNode } from "react";

/** What the block needs of the list's query (Refine's tableQuery / a useList query). */
export type ListQuery = {
  isError: boolean;
  isLoading: boolean;
  error?: { message?: string } | null;
  refetch(): unknown;
};

export type QueryTableProps<T> = Omit<TableProps<T>, "locale"> & {
  query: ListQuery;
  /** The error's title, e.g. "The payments could not be loaded." */
  failed: string;
  /** The empty state: its text, or a whole element (e.g. with the action that fills the list). */
  empty: ReactNode;
};

export function QueryTable<T extends object>({ query, failed, empty, ...table }: QueryTableProps<T>) {
  if (query.isError)
    return (
      <Alert
        type="error"
        showIcon
        message={failed}
        description={query.error?.message}
        action={<Typography.Link onClick={() => query.refetch()}>Retry</Typography.Link>}
      />
    );
  const emptyText = query.isLoading ? (
    " "
  ) : typeof empty === "string" ? (
    <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} />
  ) : (
    empty
  );
  return <Table<T> {...table} locale={{ emptyText }} />;
}
