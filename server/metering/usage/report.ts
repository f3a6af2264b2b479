// The usage & cost report: pages of rows (bucket × group_by values) with exact sums, their opaque
// cursors, and the whole report as CSV. The SQL is usage-report-sql.ts.
import { createHash, randomBytes } from "node:crypto";
import { inArray, sql } from "drizzle-orm";
import Papa from "papaparse";
import { formatUsdExact } from "../../../contract/money";
import {
  REPORT_MAX_CSV_ROWS,
  type ReportGroupBy,
  reportCsvCells,
  reportCsvHeaders,
  type UsageReportPage,
  type UsageReportRow,
} from "../../../contract/usage-report";
import { priceRules } from "../../db/schema";
import type { Db } from "../../platform/database";
import type { WorkspaceNames } from "./cache";
import { cursorBatches, pgPoolOf } from "./pg-cursor";
import { nextBucket } from "./report-buckets";
import {
  keyOf,
  type ReportKey,
  type ReportQuery,
  type ReportSqlRow,
  reportRows,
  reportRowsSql,
  reportRowsStatement,
} from "./report-sql";
import { NO_WORKSPACE, UNKNOWN_WORKSPACE } from "./sql";

/** A cursor that is not one this report returned (another query, or made up). */
export class BadCursor extends Error {}

/** A CSV report with more rows than REPORT_MAX_CSV_ROWS, refused before any byte is sent. */
export class ReportTooLarge extends Error {
  constructor(readonly rows: number) {
    super(
      `The report has ${rows.toLocaleString("en-US")} rows; a CSV report holds at most ` +
        `${REPORT_MAX_CSV_ROWS.toLocaleString("en-US")}. Use a shorter period, a wider bucket_width or ` +
        "fewer group_by values, or page through the JSON answer.",
    );
  }
}

/** What names a report: a cursor of one report is refused by any other. */
function fingerprint(q: ReportQuery): string {
  const key = JSON.stringify([
    q.organizationUuid,
    q.start.toISOString(),
    q.end.toISOString(),
    q.width,
    q.groupBy,
    q.filters,
  ]);
  return createHash("sha256").update(key).digest("base64url").slice(0, 16);
}

const BUCKET_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The group_by columns that hold uuids (the others are text). */
const UUID_GROUPS: readonly ReportGroupBy[] = ["workspace", "price_rule"];
/** Longer than any value a group_by column holds (ingestion caps them far below). */
const MAX_KEY_VALUE = 1_000;

/** The opaque cursor of the rows after `key` (the last row of a page): the row's place, not a count. */
export const cursorOf = (q: ReportQuery, key: ReportKey) =>
  Buffer.from(JSON.stringify({ k: key, f: fingerprint(q) })).toString("base64url");

/** Whether a cursor's key is one a row of `q` could have (so it binds as the columns' types). */
function validKey(q: ReportQuery, k: unknown): k is ReportKey {
  if (!Array.isArray(k) || k.length !== q.groupBy.length + 1) return false;
  const [bucket, ...values] = k as unknown[];
  if (typeof bucket !== "string" || !BUCKET_TEXT.test(bucket) || Number.isNaN(Date.parse(bucket)))
    return false;
  if (new Date(bucket).toISOString().replace(".000", "") !== bucket) return false;
  return values.every(
    (v, i) =>
      v === null ||
      (typeof v === "string" &&
        v.length <= MAX_KEY_VALUE &&
        !v.includes("\u0000") &&
        (!UUID_GROUPS.includes(q.groupBy[i] as ReportGroupBy) || UUID.test(v))),
  );
}

/** The key a cursor names (null: the first page); BadCursor when it is not one of this report's. */
export function keyOfCursor(q: ReportQuery, cursor: string | undefined): ReportKey | null {
  if (cursor === undefined) return null;
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { k?: unknown; f?: unknown };
    if (v.f === fingerprint(q) && validKey(q, v.k)) return v.k;
  } catch {
    // not JSON: refused below
  }
  throw new BadCursor(
    "page is not a cursor of this report: pass next_page of the previous answer, with the same parameters.",
  );
}

const sums = (events: string, quantity: string, cost: string) => ({
  events: Number(events),
  count: Number(quantity),
  cost: formatUsdExact(BigInt(cost)),
});

type RuleFacts = { version: number; unitPriceMicros: bigint };
type Lookups = { names: ReadonlyMap<string, string>; rules: ReadonlyMap<string, RuleFacts> };

/**
 * group_by price_rule: the version and unit price of the rules the rows name (a rule row never
 * changes but for its end, so these are what priced the events).
 */
async function rulesFor(db: Db, q: ReportQuery, rows: readonly ReportSqlRow[]) {
  const uuids = [...new Set(rows.map((r) => r.price_rule).filter((u): u is string => !!u))];
  const out = new Map<string, RuleFacts>();
  if (!q.groupBy.includes("price_rule") || uuids.length === 0) return out;
  for (let i = 0; i < uuids.length; i += 1000) {
    const found = await db
      .select({
        uuid: priceRules.priceRuleUuid,
        version: priceRules.version,
        unitPriceMicros: priceRules.unitPriceMicros,
      })
      .from(priceRules)
      .where(inArray(priceRules.priceRuleUuid, uuids.slice(i, i + 1000)));
    for (const f of found) out.set(f.uuid, { version: f.version, unitPriceMicros: f.unitPriceMicros });
  }
  return out;
}

/** A database row as the API's row: the bucket clipped to the period, workspace names and rules filled in. */
function rowOf(q: ReportQuery, r: ReportSqlRow, { names, rules }: Lookups): UsageReportRow {
  const start = new Date(r.bucket);
  const end = nextBucket(start, q.width);
  const row: UsageReportRow = {
    starting_at: new Date(Math.max(start.getTime(), q.start.getTime())).toISOString(),
    ending_at: new Date(Math.min(end.getTime(), q.end.getTime())).toISOString(),
    events: 0,
    count: 0,
    cost: "0.00",
  };
  for (const g of q.groupBy) {
    if (g === "workspace") {
      const id = r.workspace ?? null;
      row.workspace_uuid = id;
      row.workspace_name = id === null ? NO_WORKSPACE : (names.get(id) ?? UNKNOWN_WORKSPACE);
    } else if (g === "eval_type") row.eval_type = r.eval_type ?? "";
    else if (g === "operation") row.operation = r.operation ?? "";
    else if (g === "modality") row.modality = r.modality ?? "";
    else if (g === "eval_run") row.eval_run_uuid = r.eval_run ?? null;
    else if (g === "created_by") row.created_by = r.created_by ?? null;
    else if (g === "api_key") row.api_key_id = r.api_key ?? null;
    else {
      const id = r.price_rule ?? null;
      const rule = id === null ? undefined : rules.get(id);
      row.price_rule_uuid = id;
      row.price_rule_version = rule?.version ?? null;
      row.unit_price = rule ? formatUsdExact(rule.unitPriceMicros) : null;
    }
  }
  return { ...row, ...sums(r.events, r.quantity, r.cost) };
}

const namesFor = (q: ReportQuery, namesOf: WorkspaceNames) =>
  q.groupBy.includes("workspace") ? namesOf(q.organizationUuid) : Promise.resolve(new Map<string, string>());

/**
 * One page of the report: at most `limit` rows after `after` (keyOfCursor of a cursor; null for the
 * first page), with the report's totals. A page starts where the previous one ended by the rows'
 * order itself, not by a count of rows, so rows added or removed in between never repeat a row or
 * skip one that was there all along.
 */
export async function reportPage(
  db: Db,
  q: ReportQuery,
  after: ReportKey | null,
  limit: number,
  namesOf: WorkspaceNames,
): Promise<UsageReportPage> {
  const [read, names] = await Promise.all([
    reportRows(db, q, { after, limit: limit + 1 }),
    namesFor(q, namesOf),
  ]);
  const hasMore = read.length > limit;
  const rows = read.slice(0, limit);
  const lookups = { names, rules: await rulesFor(db, q, rows) };
  // A cursor past the last row (the usage shrank since: an archived month) still gets the totals.
  const head = rows[0] ?? (after ? (await reportRows(db, q, { limit: 1 }))[0] : undefined);
  const totalRows = Number(head?.totalRows ?? 0);
  const last = rows[rows.length - 1];
  return {
    starting_at: q.start.toISOString(),
    ending_at: q.end.toISOString(),
    bucket_width: q.width,
    group_by: [...q.groupBy],
    data: rows.map((r) => rowOf(q, r, lookups)),
    totals: head ? sums(head.totalEvents, head.totalQuantity, head.totalCost) : sums("0", "0", "0"),
    total_rows: totalRows,
    has_more: hasMore,
    next_page: hasMore && last ? cursorOf(q, keyOf(q, last)) : null,
  };
}

/** Rows read from the database at a time while a CSV report is sent. */
export const REPORT_CSV_BATCH = 2_000;

/** The column names of a report row, in reportGroupedQuery's order (a cursor's arrays). */
const rowColumns = (q: ReportQuery) => [
  "bucket",
  ...q.groupBy,
  "b",
  "events",
  "quantity",
  "cost",
  "totalRows",
  "totalEvents",
  "totalQuantity",
  "totalCost",
];

/**
 * The report's rows in order, `batch` at a time, from one statement (one snapshot, grouped and
 * sorted once): a cursor in a read-only transaction on PostgreSQL; on PGlite a cursor WITH HOLD,
 * which the database keeps (spilled to its temporary files past work_mem) after its statement, so
 * each batch is a short statement of its own and other calls take turns between them, never waiting
 * for the client's download.
 */
async function* reportBatches(db: Db, q: ReportQuery, batch: number): AsyncGenerator<ReportSqlRow[]> {
  const pool = pgPoolOf(db);
  if (pool) {
    const names = rowColumns(q);
    const toSQL = () => reportRowsStatement(db, q, {});
    for await (const rows of cursorBatches(pool, { toSQL }, batch))
      yield rows.map((v) => Object.fromEntries(names.map((n, i) => [n, v[i]])) as ReportSqlRow);
    return;
  }
  const name = sql.raw(`report_${randomBytes(8).toString("hex")}`);
  try {
    await db.execute(sql`declare ${name} no scroll cursor with hold for ${reportRowsSql(db, q, {})}`);
    for (;;) {
      const { rows } = (await db.execute(
        sql`fetch forward ${sql.raw(String(batch))} from ${name}`,
      )) as unknown as {
        rows: ReportSqlRow[];
      };
      if (rows.length) yield rows;
      if (rows.length < batch) return;
    }
  } finally {
    // Also after a failed declare: a read dropped at its time limit may still have opened it.
    await db.execute(sql`close ${name}`).catch(() => {});
  }
}

/**
 * The whole report as CSV lines (CRLF), header first, streamed: rows are read a batch at a time
 * (reportBatches) as the client takes them, so memory stays one batch whatever the report's size.
 * The first batch is read before this returns: it carries the report's row count, so a report over
 * the limit throws ReportTooLarge (the route answers 400) before any byte is sent. `close` ends the
 * read (closes the cursor, releases its connection) whether or not the lines were ever read: call it
 * when the response ends.
 */
export async function reportCsv(
  db: Db,
  q: ReportQuery,
  namesOf: WorkspaceNames,
  opts: { batchRows?: number } = {},
): Promise<{ lines: AsyncGenerator<string>; close: () => Promise<void> }> {
  const batches = reportBatches(db, q, opts.batchRows ?? REPORT_CSV_BATCH);
  const [first, names] = await Promise.all([batches.next(), namesFor(q, namesOf)]);
  const head = first.done ? undefined : first.value[0];
  const totalRows = Number(head?.totalRows ?? 0);
  if (totalRows > REPORT_MAX_CSV_ROWS) {
    await batches.return(undefined);
    throw new ReportTooLarge(totalRows);
  }
  const header = reportCsvHeaders(q.groupBy);
  async function* lines(): AsyncGenerator<string> {
    try {
      yield `${Papa.unparse([header], { newline: "\r\n" })}\r\n`;
      if (first.done) return;
      let rows: ReportSqlRow[] = first.value;
      for (;;) {
        const lookups = { names, rules: await rulesFor(db, q, rows) };
        const cells = rows.map((r) => reportCsvCells(rowOf(q, r, lookups), q.groupBy));
        yield `${Papa.unparse(cells, { newline: "\r\n" })}\r\n`;
        const next = await batches.next();
        if (next.done) return;
        rows = next.value;
      }
    } finally {
      // The client went away (or a read failed): the cursor is closed, its connection released.
      await batches.return(undefined);
    }
  }
  return { lines: lines(), close: async () => void (await batches.return(undefined)) };
}
