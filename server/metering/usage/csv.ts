// The streamed CSV export: the contract's columns, written by papaparse.
import { and, desc, type SQL, sql } from "drizzle-orm";
import Papa from "papaparse";
import { type CsvDetails, csvCellsOf, csvHeaders, MAX_EXPORT_ROWS } from "../../../contract/usage-csv";
import type { UsageRecord } from "../../../contract/usage-schemas";
import { priceRules, usageEvents, workspaces } from "../../db/schema";
import type { Db } from "../../platform/database";
import type { Cycle } from "../billing/cycles";
import type { UsageFilters } from "./filters";
import { cursorBatches, pgPoolOf } from "./pg-cursor";
import { priceRuleJoin, type RecordRow, recordColumns, recordJson } from "./records";
import { eventWhere, workspaceJoin, workspaceMatches } from "./sql";

/**
 * Records as CSV lines, each ending in CRLF, the header first when asked. Fields are quoted only
 * when they must be; formula text is already neutralised by the contract's cells.
 */
function csvText(records: readonly UsageRecord[], withHeader: boolean, details: CsvDetails | null): string {
  const rows = records.map(csvCellsOf(details));
  if (withHeader) rows.unshift([...csvHeaders(details)]);
  return rows.length ? `${Papa.unparse(rows, { newline: "\r\n" })}\r\n` : "";
}

const CSV_BATCH = 1000;

/** An export is paced to at most this many bytes a second (about 100,000 records a second). */
export const EXPORT_BYTES_PER_SECOND = 16 * 1024 * 1024;

/** Thrown inside the stream when an export would exceed MAX_EXPORT_ROWS: the transfer is cut. */
export class ExportTooLarge extends Error {
  constructor(readonly maxRows: number) {
    super(`The export has more than ${maxRows} records.`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A record read by the PostgreSQL cursor: the select list's values in recordColumns' order. */
const COLUMN_NAMES = Object.keys(recordColumns) as (keyof RecordRow)[];
function rowOfCursor(values: readonly unknown[]): RecordRow {
  const r = Object.fromEntries(COLUMN_NAMES.map((name, i) => [name, values[i]])) as Record<string, unknown>;
  // pg reads int8 as text: money as exact BigInts, the quantity as a number (as Drizzle maps them).
  r.unitPriceMicros = BigInt(r.unitPriceMicros as string);
  r.costMicros = BigInt(r.costMicros as string);
  r.quantity = Number(r.quantity);
  return r as RecordRow;
}

/** Reads the records in batches: a cursor on PostgreSQL, keyset-ordered statements on PGlite. */
async function* recordBatches(db: Db, where: SQL | undefined, batch: number): AsyncGenerator<RecordRow[]> {
  const order = [desc(usageEvents.occurredAt), desc(usageEvents.usageEventUuid)];
  const pool = pgPoolOf(db);
  if (pool) {
    const query = db
      .select(recordColumns)
      .from(usageEvents)
      .leftJoin(workspaces, workspaceJoin)
      .leftJoin(priceRules, priceRuleJoin)
      .where(where)
      .orderBy(...order);
    for await (const rows of cursorBatches(pool, query, batch)) yield rows.map(rowOfCursor);
    return;
  }
  // The next batch starts after the last row's (time, uuid). The time is carried as the database
  // holds it, to the microsecond: a JavaScript Date keeps milliseconds, and a key cut to them
  // skipped the rows that shared the last row's time but sorted after it (bulk-loaded times).
  let after: { at: string; uuid: string } | null = null;
  for (;;) {
    const cursor: SQL | undefined = after
      ? sql`(${usageEvents.occurredAt}, ${usageEvents.usageEventUuid}) < (${after.at}::timestamptz, ${after.uuid}::uuid)`
      : undefined;
    const rows = (await db
      .select({ ...recordColumns, key: sql<string>`(${usageEvents.occurredAt})::text` })
      .from(usageEvents)
      .leftJoin(workspaces, workspaceJoin)
      .leftJoin(priceRules, priceRuleJoin)
      .where(and(where, cursor))
      .orderBy(...order)
      .limit(batch)) as (RecordRow & { key: string })[];
    if (rows.length) yield rows;
    const tail = rows[rows.length - 1];
    if (!tail || rows.length < batch) return;
    after = { at: tail.key, uuid: tail.usageEventUuid };
  }
}

/**
 * The filtered records as CSV lines (header first), newest first, read in batches (recordBatches),
 * so memory stays one batch whatever the export's size, and the next batch is read only when the
 * client has taken the previous ones (the stream's backpressure). The header is yielded together
 * with the first batch, so that a failure of the first read is an error status, not a 200 with a
 * header only. At most `maxRows` records (more throws ExportTooLarge after them, which breaks the
 * transfer), paced to `bytesPerSecond`. The columns are the spec's, then any `details` asked for.
 */
export async function* csvLines(
  db: Db,
  cycle: Cycle,
  f: UsageFilters,
  opts: { maxRows?: number; bytesPerSecond?: number; batchRows?: number } = {},
  details: CsvDetails | null = null,
): AsyncGenerator<string> {
  const maxRows = opts.maxRows ?? MAX_EXPORT_ROWS;
  const rate = opts.bytesPerSecond ?? EXPORT_BYTES_PER_SECOND;
  const started = Date.now();
  let withHeader = true;
  let sentRows = 0;
  let sentBytes = 0;
  const where = eventWhere(cycle, f, await workspaceMatches(db, cycle.organizationUuid, f.search));
  for await (const rows of recordBatches(db, where, opts.batchRows ?? CSV_BATCH)) {
    const room = maxRows - sentRows;
    const chunk = csvText(rows.slice(0, room).map(recordJson), withHeader, details);
    withHeader = false;
    if (chunk) yield chunk;
    if (rows.length > room) throw new ExportTooLarge(maxRows);
    sentRows += rows.length;
    sentBytes += chunk.length;
    const ahead = (sentBytes / rate) * 1000 - (Date.now() - started);
    if (ahead > 0) await sleep(ahead);
  }
  // No record at all: the header alone.
  if (withHeader) yield csvText([], true, details);
}
