// The list block every list in the console shows (pages, cards, drawers): the table, an error with
// Retry when its query failed (instead of an empty table that reads as "none"), and its empty state
// only once the query has answered: while it loads, the table spins over a blank body, never over
// "No data" or the list's own empty text.
import { Alert, Empty, Table, type TableProps, Typography } from "antd";
import type { ReactNode } from "react";

/** What the block needs of the list's query (Refine's tableQuery / a useList query). */
export type ListQuery = {
  isError: boolean;
  isLoading: boolean;
  error?: unknown;
  refetch(): unknown;
};

export type QueryTableProps<T> = Omit<TableProps<T>, "locale"> & {
  query: ListQuery;
  /** The error's title, e.g. "The payments could not be loaded." */
  failed: string;
  /** The error in words for the reader (default: its message). */
  errorText?: (error: unknown) => ReactNode;
  /** The empty state: its text, or a whole element (e.g. with the action that fills the list). */
  empty: ReactNode;
  /**
   * The blank body's height while the list loads, for a list whose first page fills a known room
   * (its page size of rows): the rows then take the room the blank held, and nothing below moves.
   */
  loadingHeight?: number;
};

const messageOf = (error: unknown): ReactNode =>
  error && typeof error === "object" && "message" in error ? String(error.message) : undefined;

export function QueryTable<T extends object>({
  query,
  failed,
  errorText = messageOf,
  empty,
  loadingHeight,
  ...table
}: QueryTableProps<T>) {
  if (query.isError)
    return (
      <Alert
        type="error"
        showIcon
        message={failed}
        description={errorText(query.error)}
        action={<Typography.Link onClick={() => query.refetch()}>Retry</Typography.Link>}
      />
    );
  const emptyText = query.isLoading ? (
    loadingHeight ? (
      <div style={{ height: loadingHeight }} aria-busy />
    ) : (
      " "
    )
  ) : typeof empty === "string" ? (
    <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} />
  ) : (
    empty
  );
  return <Table<T> {...table} loading={table.loading ?? query.isLoading} locale={{ emptyText }} />;
}
