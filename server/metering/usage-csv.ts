// The streamed CSV export with the spec's columns.
import { and, desc, type SQL, sql } from "drizzle-orm";
import { usageEvents, workspaces } from "../db/schema";
import type { Db } from "../platform/database";
import type { Cycle } from "./cycles";
import type { UsageFilters } from "./filters";
import { type RecordJson, type RecordRow, recordColumns, recordJson } from "./usage-records";
import { eventWhere, workspaceJoin, workspaceMatches } from "./usage-sql";

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

/** The most records one export carries; a larger result is cut off as a failed transfer. */
export const MAX_EXPORT_ROWS = 1_000_000;
/** An export is paced to at most this many bytes a second (about 100,000 records a second). */
export const EXPORT_BYTES_PER_SECOND = 16 * 1024 * 1024;

/** Thrown inside the stream when an export would exceed MAX_EXPORT_ROWS: the transfer is cut. */
export class ExportTooLarge extends Error {
  constructor(readonly maxRows: number) {
    super(`The export has more than ${maxRows} records.`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The filtered records as CSV lines (header first), newest first, read in keyset batches. The
 * header is yielded together with the first batch, so that a failure of the first read is an
 * error status, not a 200 with a header only. At most `maxRows` records (more throws
 * ExportTooLarge after them, which breaks the transfer), paced to `bytesPerSecond`.
 */
export async function* csvLines(
  db: Db,
  cycle: Cycle,
  f: UsageFilters,
  opts: { maxRows?: number; bytesPerSecond?: number } = {},
): AsyncGenerator<string> {
  const maxRows = opts.maxRows ?? MAX_EXPORT_ROWS;
  const rate = opts.bytesPerSecond ?? EXPORT_BYTES_PER_SECOND;
  const started = Date.now();
  let header = `${CSV_COLUMNS.join(",")}\r\n`;
  let sentRows = 0;
  let sentBytes = 0;
  let after: { at: Date; uuid: string } | null = null;
  const where = eventWhere(cycle, f, await workspaceMatches(db, cycle.organizationUuid, f.search));
  for (;;) {
    const cursor: SQL | undefined = after
      ? sql`(${usageEvents.occurredAt}, ${usageEvents.usageEventUuid}) < (${after.at.toISOString()}::timestamptz, ${after.uuid}::uuid)`
      : undefined;
    const rows = (await db
      .select(recordColumns)
      .from(usageEvents)
      .leftJoin(workspaces, workspaceJoin)
      .where(and(where, cursor))
      .orderBy(desc(usageEvents.occurredAt), desc(usageEvents.usageEventUuid))
      .limit(Math.min(CSV_BATCH, maxRows - sentRows + 1))) as RecordRow[];
    const room = maxRows - sentRows;
    const chunk =
      header +
      rows
        .slice(0, room)
        .map((r) => `${csvLine(recordJson(r))}\r\n`)
        .join("");
    header = "";
    if (chunk) yield chunk;
    if (rows.length > room) throw new ExportTooLarge(maxRows);
    sentRows += rows.length;
    sentBytes += chunk.length;
    const tail = rows[rows.length - 1];
    if (!tail || rows.length < CSV_BATCH) return;
    after = { at: tail.occurredAt, uuid: tail.usageEventUuid };
    const ahead = (sentBytes / rate) * 1000 - (Date.now() - started);
    if (ahead > 0) await sleep(ahead);
  }
}
