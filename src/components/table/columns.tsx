// Column builders for the columns many lists share in one form, so a time or an amount reads
// alike on every page: a field through its formatter (a placeholder where it has none), an amount
// right-aligned.
import type { TableColumnType } from "antd";
import type { ReactNode } from "react";
import { formatMoney } from "../../../contract/money";

type Options = { width?: number; key?: string; empty?: ReactNode };

/** A field shown through `format`; `empty` (default "—") where the row has none. */
export function formatColumn<T, V = string>(
  title: string,
  field: keyof T & string,
  format: (value: V) => ReactNode,
  { width, key = field, empty = "—" }: Options = {},
): TableColumnType<T> {
  return {
    title,
    dataIndex: field,
    key,
    width,
    render: (value: V | null) =>
      value === null || value === undefined || value === "" ? empty : format(value),
  };
}

/** A USD amount, right-aligned, as the customer's pages format amounts. */
export function moneyColumn<T>(title: string, field: keyof T & string, width = 140): TableColumnType<T> {
  return { ...formatColumn<T>(title, field, formatMoney, { width }), align: "right" };
}
