// A server-paged table's pager as the console shows it: a fixed page size and the total counted
// in the table's own noun ("1 run", "806 runs").
import type { TablePaginationConfig } from "antd";

export function countedPagination(
  pagination: TablePaginationConfig | false | undefined,
  one: string,
  many = `${one}s`,
): TablePaginationConfig {
  return {
    ...(pagination || {}),
    showSizeChanger: false,
    showTotal: (total) => `${total} ${total === 1 ? one : many}`,
  };
}
