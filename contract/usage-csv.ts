/**
 * The usage export's columns (spec: Date, Eval, Operation, Eval Type, Eval ID, Run ID, Workspace,
 * Created By, Quantity, Unit Price, Cost, Price Adjustment Note; then, for provenance, the price
 * rule that priced the record and its version, and for late usage its closed period and time) and how a record fills each cell.
 * The server writes the export with them; the console and the tests check the header against them.
 */
import type { UsageRecord } from "./usage-schemas";

/**
 * A text cell. Text a spreadsheet would run as a formula (=, +, -, @, tab, carriage return first)
 * is prefixed with a quote; amounts and dates are not text and keep their sign.
 */
export function textCell(value: string | null): string {
  if (value === null) return "";
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

type Column = { header: string; cell: (r: UsageRecord) => string };

export const CSV_COLUMNS: readonly Column[] = [
  { header: "Date", cell: (r) => r.date },
  { header: "Eval", cell: (r) => textCell(r.name) },
  { header: "Operation", cell: (r) => textCell(r.operation) },
  { header: "Eval Type", cell: (r) => textCell(r.eval_type) },
  { header: "Eval ID", cell: (r) => textCell(r.eval_uuid) },
  { header: "Run ID", cell: (r) => textCell(r.eval_run_uuid) },
  { header: "Workspace", cell: (r) => textCell(r.workspace_name) },
  { header: "Created By", cell: (r) => textCell(r.created_by) },
  { header: "Quantity", cell: (r) => String(r.quantity) },
  { header: "Unit Price", cell: (r) => r.unit_price },
  { header: "Cost", cell: (r) => r.cost },
  { header: "Price Adjustment Note", cell: (r) => textCell(r.notes) },
  { header: "Price Rule ID", cell: (r) => r.price_rule_uuid ?? "" },
  {
    header: "Price Rule Version",
    cell: (r) => (r.price_rule_version === null ? "" : String(r.price_rule_version)),
  },
  // Late usage and closed-cycle price corrections: the closed period they belong to, and when a
  // late event happened (Date is when it was billed).
  {
    header: "Late From Period",
    cell: (r) => (r.late_from ? `${r.late_from.period_start} to ${r.late_from.period_end}` : ""),
  },
  { header: "Late Occurred At", cell: (r) => r.late_from?.occurred_at ?? "" },
];

/** The header row, in order. */
export const CSV_HEADERS: readonly string[] = CSV_COLUMNS.map((c) => c.header);

/** One record's cells, in the columns' order (quoting is the CSV writer's job). */
export const csvCells = (r: UsageRecord): string[] => CSV_COLUMNS.map((c) => c.cell(r));

/** The most records one export carries; the server cuts a larger one off as a failed transfer. */
export const MAX_EXPORT_ROWS = 1_000_000;
