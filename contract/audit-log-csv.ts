/**
 * The audit log export's columns and how an entry fills each cell: the server writes the CSV with
 * them; the tests check the header against them. Before and After are the JSON snapshots.
 */
import type { AuditEntry } from "./audit-log-schema";
import { textCell } from "./usage-csv";

type Column = { header: string; cell: (e: AuditEntry) => string };

const jsonCell = (v: Record<string, unknown> | null) => (v === null ? "" : textCell(JSON.stringify(v)));

export const AUDIT_CSV_COLUMNS: readonly Column[] = [
  { header: "Time", cell: (e) => e.at },
  { header: "Action", cell: (e) => e.action },
  { header: "Actor", cell: (e) => textCell(e.actor_email) },
  { header: "Actor User ID", cell: (e) => textCell(e.actor_user_id) },
  { header: "Impersonator User ID", cell: (e) => textCell(e.impersonator_user_id) },
  { header: "Source", cell: (e) => e.source },
  { header: "Target Type", cell: (e) => e.target_type },
  { header: "Target ID", cell: (e) => textCell(e.target_id) },
  { header: "Target", cell: (e) => textCell(e.target_label) },
  { header: "Before", cell: (e) => jsonCell(e.before) },
  { header: "After", cell: (e) => jsonCell(e.after) },
];

export const AUDIT_CSV_HEADERS: readonly string[] = AUDIT_CSV_COLUMNS.map((c) => c.header);

export const auditCsvCells = (e: AuditEntry): string[] => AUDIT_CSV_COLUMNS.map((c) => c.cell(e));

/** The most entries one export carries. */
export const AUDIT_MAX_EXPORT_ROWS = 100_000;
