// What the eval run pages show of what a run bought, and the Compare page's address and CSV: pass
// rates as percentages (from the API's exact decimal string, no float division), signed
// differences, and the comparison's rows as a spreadsheet opens them.
import type { ComparedRun } from "../../contract/eval-run-outcomes";
import { textCell } from "../../contract/usage-csv";

/** The Compare page of `runs` (2 to 10 ids, the first the baseline), for a billing cycle when given. */
export function comparePath(listPath: string, runs: readonly string[], billingCycleUuid?: string | null) {
  const q = new URLSearchParams(runs.map((r) => ["eval_run_uuid", r]));
  if (billingCycleUuid) q.set("billing_cycle_uuid", billingCycleUuid);
  return `${listPath}?${q.toString()}`;
}

/** "0.833333" → "83.3%" (halves up, from the string's digits); null → "-". */
export function passRatePercent(rate: string | null | undefined): string {
  if (rate === null || rate === undefined) return "-";
  const m = /^(-)?(\d+)\.(\d{6})$/.exec(rate);
  if (!m) return rate;
  const units = Number(m[2]) * 1_000_000 + Number(m[3]);
  const tenths = Math.floor((units + 500) / 1_000);
  return `${m[1] ?? ""}${Math.floor(tenths / 10)}.${tenths % 10}%`;
}

/** A pass rate difference in percentage points: "-0.050000" → "-5.0 pts", 0 → "0.0 pts". */
export function passRateDifference(rate: string | null): string {
  if (rate === null) return "-";
  const percent = passRatePercent(rate).replace("%", "");
  return `${percent.startsWith("-") || percent === "0.0" ? "" : "+"}${percent} pts`;
}

/** A signed money difference: "+$1.20", "-$0.05", "$0.00". */
export function signedMoney(formatted: string, raw: string | null): string {
  if (raw === null) return "-";
  return raw.startsWith("-") || /^0(\.0+)?$/.test(raw) ? formatted : `+${formatted}`;
}

const quote = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);

const COLUMNS: readonly { header: string; cell: (r: ComparedRun) => string | number | null }[] = [
  { header: "Run ID", cell: (r) => textCell(r.eval_run_uuid) },
  { header: "Eval", cell: (r) => textCell(r.eval_name) },
  { header: "Eval Type", cell: (r) => textCell(r.eval_type) },
  { header: "Started", cell: (r) => r.started_at },
  { header: "Finished", cell: (r) => r.finished_at },
  { header: "Events", cell: (r) => r.events },
  { header: "Cost", cell: (r) => r.cost },
  { header: "Generation Cost", cell: (r) => r.cost_by_role.generation },
  { header: "Scoring Cost", cell: (r) => r.cost_by_role.scoring },
  { header: "Passed", cell: (r) => r.outcomes?.passed ?? null },
  { header: "Failed", cell: (r) => r.outcomes?.failed ?? null },
  { header: "Errored", cell: (r) => r.outcomes?.errored ?? null },
  { header: "Pass Rate", cell: (r) => r.pass_rate },
  { header: "Cost per Passed Case", cell: (r) => r.cost_per_passed_case },
  { header: "Cost Difference", cell: (r) => r.difference.cost },
  { header: "Events Difference", cell: (r) => r.difference.events },
  { header: "Pass Rate Difference", cell: (r) => r.difference.pass_rate },
  { header: "Cost per Passed Case Difference", cell: (r) => r.difference.cost_per_passed_case },
];

/** The comparison as CSV: one row per run, exact amounts, empty cells where a figure is missing. */
export function comparisonCsv(runs: readonly ComparedRun[]): string {
  const lines = [
    COLUMNS.map((c) => c.header),
    ...runs.map((r) => COLUMNS.map((c) => String(c.cell(r) ?? ""))),
  ];
  return `${lines.map((cells) => cells.map(quote).join(",")).join("\r\n")}\r\n`;
}
