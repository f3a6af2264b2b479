// The streamed CSV export with the spec's columns.
import { and, desc, type SQL, sql } from "drizzle-orm";
import { usageEvents, workspaces } from "../db/schema";
import type { Db } from "../platform/database";
import type { Cycle } from "./cycles";
import type { UsageFilters } from "./filters";
import { type RecordJson, type RecordRow, recordColumns, recordJson } from "./usage-records";
import { eventWhere, workspaceJoin } from "./usage-sql";

export const CSV_COLUMNS = [
  "Date",
  "Eval",
  "Operation",
  "Eval Type",
  "Eval ID",
  "Run ID",
  "Workspace",
  "Created By",
  "Quantity",
  "Unit Price",
  "Cost",
  "Price Adjustment Note",
] as const;

/** One CSV field; text that a spreadsheet would run as a formula is prefixed with a quote. */
export function csvField(value: string | number | null, text = true): string {
  if (value === null) return "";
  let s = String(value);
  if (text && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(r: RecordJson): string {
  return [
    csvField(r.date, false),
    csvField(r.name),
    csvField(r.operation),
    csvField(r.eval_type),
    csvField(r.eval_uuid),
    csvField(r.eval_run_uuid),
    csvField(r.workspace_name),
    csvField(r.created_by),
    csvField(r.quantity, false),
    csvField(r.unit_price, false),
    csvField(r.cost, false),
    csvField(r.notes),
  ].join(",");
}

const CSV_BATCH = 1000;

/** The filtered records as CSV lines (header first), newest first, read in keyset batches. */
export async function* csvLines(db: Db, cycle: Cycle, f: UsageFilters): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(",")}\r\n`;
  let after: { at: Date; uuid: string } | null = null;
  for (;;) {
    const cursor: SQL | undefined = after
      ? sql`(${usageEvents.occurredAt}, ${usageEvents.usageEventUuid}) < (${after.at.toISOString()}::timestamptz, ${after.uuid}::uuid)`
      : undefined;
    const rows = (await db
      .select(recordColumns)
      .from(usageEvents)
      .leftJoin(workspaces, workspaceJoin)
      .where(and(eventWhere(cycle, f), cursor))
      .orderBy(desc(usageEvents.occurredAt), desc(usageEvents.usageEventUuid))
      .limit(CSV_BATCH)) as RecordRow[];
    if (!rows.length) return;
    yield rows.map((r) => `${csvLine(recordJson(r))}\r\n`).join("");
    const tail = rows[rows.length - 1];
    if (!tail || rows.length < CSV_BATCH) return;
    after = { at: tail.occurredAt, uuid: tail.usageEventUuid };
  }
}
