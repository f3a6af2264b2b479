/**
 * The usage export's columns and how a record fills each cell. The spec fixes the export's columns
 * (Date, Eval, Operation, Eval Type, Eval ID, Run ID, Workspace, Created By, Quantity, Unit Price,
 * Cost, Price Adjustment Note): "Export to CSV" and `GET /v1/usage/export.csv` give exactly those.
 * The pricing details (the price rule that priced a record and its version, and for late usage its
 * closed period and time) are asked for (`details=pricing`, "Export with pricing details") and
 * follow the spec's columns, so a detailed file is a plain one with columns added on the right.
 * The server writes both with these; the console and the tests check the header against them.
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

/** The spec's twelve columns, in the spec's order. */
const SPEC_COLUMNS: readonly Column[] = [
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
];

/** The pricing details, appended after the spec's columns when asked for. */
const PRICING_COLUMNS: readonly Column[] = [
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

/** The values of the export's `details` parameter: which columns follow the spec's. */
export const CSV_DETAILS = ["pricing"] as const;
export type CsvDetails = (typeof CSV_DETAILS)[number];

const COLUMNS: Record<CsvDetails | "none", readonly Column[]> = {
  none: SPEC_COLUMNS,
  pricing: [...SPEC_COLUMNS, ...PRICING_COLUMNS],
};

/** The columns of an export: the spec's alone, or followed by the details asked for. */
const columnsOf = (details: CsvDetails | null) => COLUMNS[details ?? "none"];

/** The spec's header row, in order: the export without details. */
export const CSV_HEADERS: readonly string[] = SPEC_COLUMNS.map((c) => c.header);

/** The header row of the export with pricing details: the spec's, then the details'. */
export const CSV_PRICING_HEADERS: readonly string[] = COLUMNS.pricing.map((c) => c.header);

/** The header row of an export with the given details (none: the spec's). */
export const csvHeaders = (details: CsvDetails | null = null): readonly string[] =>
  details === "pricing" ? CSV_PRICING_HEADERS : CSV_HEADERS;

/**
 * A record's cells in the columns of an export with the given details (quoting is the CSV
 * writer's job). A function of the record, so that it maps a list of records as it is.
 */
export const csvCellsOf =
  (details: CsvDetails | null) =>
  (r: UsageRecord): string[] =>
    columnsOf(details).map((c) => c.cell(r));

/** One record's cells in the spec's columns, in order. */
export const csvCells = csvCellsOf(null);

/** The most records one export carries; the server cuts a larger one off as a failed transfer. */
export const MAX_EXPORT_ROWS = 1_000_000;
