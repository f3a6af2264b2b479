// The streamed CSV export: the contract's columns, written by papaparse.
import { and, desc, type SQL, sql } from "drizzle-orm";
import Papa from "papaparse";
import { CSV_HEADERS, csvCells, MAX_EXPORT_ROWS } from "../../contract/usage-csv";
import type { UsageRecord } from "../../contract/usage-schemas";
import { priceRules, usageEvents, workspaces } from "../db/schema";
import type { Db } from "../platform/database";
import type { Cycle } from "./cycles";
import type { UsageFilters } from "./filters";
import { priceRuleJoin, type RecordRow, recordColumns, recordJson } from "./usage-records";
import { eventWhere, workspaceJoin, workspaceMatches } from "./usage-sql";

/**
 * Records as CSV lines, each ending in CRLF, the header first when asked. Fields are quoted only
 * when they must be; formula text is already neutralised by the contract's cells.
 */
function csvText(records: readonly UsageRecord[], withHeader: boolean): string {
  const rows = records.map(csvCells);
  if (withHeader) rows.unshift([...CSV_HEADERS]);
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
  let withHeader = true;
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
      .leftJoin(priceRules, priceRuleJoin)
      .where(and(where, cursor))
      .orderBy(desc(usageEvents.occurredAt), desc(usageEvents.usageEventUuid))
      .limit(Math.min(CSV_BATCH, maxRows - sentRows + 1))) as RecordRow[];
    const room = maxRows - sentRows;
    const chunk = csvText(rows.slice(0, room).map(recordJson), withHeader);
    withHeader = false;
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
