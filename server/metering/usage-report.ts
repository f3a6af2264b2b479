// The usage & cost report: pages of rows (bucket × group_by values) with exact sums, their opaque
// cursors, and the whole report as CSV. The SQL is usage-report-sql.ts.
import { createHash } from "node:crypto";
import { inArray } from "drizzle-orm";
import Papa from "papaparse";
import { formatUsdExact } from "../../contract/money";
import {
  REPORT_MAX_CSV_ROWS,
  reportCsvCells,
  reportCsvHeaders,
  type UsageReportPage,
  type UsageReportRow,
} from "../../contract/usage-report";
import { priceRules } from "../db/schema";
import type { Db } from "../platform/database";
import { workspaceNames } from "./usage-cache";
import { nextBucket } from "./usage-report-buckets";
import { type ReportQuery, type ReportSqlRow, reportRows } from "./usage-report-sql";
import { NO_WORKSPACE, UNKNOWN_WORKSPACE } from "./usage-sql";

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

/** The opaque cursor of the rows from `offset` on. */
export const cursorOf = (q: ReportQuery, offset: number) =>
  Buffer.from(JSON.stringify({ o: offset, f: fingerprint(q) })).toString("base64url");

/** The offset a cursor names; BadCursor when it is not one of this report's. */
export function offsetOf(q: ReportQuery, cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { o?: unknown; f?: unknown };
    if (Number.isSafeInteger(v.o) && (v.o as number) >= 0 && v.f === fingerprint(q)) return v.o as number;
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

const namesFor = (db: Db, q: ReportQuery) =>
  q.groupBy.includes("workspace") ? workspaceNames(db, q.organizationUuid) : Promise.resolve(new Map());

/** One page of the report: at most `limit` rows from `offset` (offsetOf a cursor), with the report's totals. */
export async function reportPage(
  db: Db,
  q: ReportQuery,
  offset: number,
  limit: number,
): Promise<UsageReportPage> {
  const [rows, names] = await Promise.all([reportRows(db, q, { offset, limit }), namesFor(db, q)]);
  const lookups = { names, rules: await rulesFor(db, q, rows) };
  // A cursor past the last row (the usage shrank since: an archived month) still gets the totals.
  const head = rows[0] ?? (offset > 0 ? (await reportRows(db, q, { offset: 0, limit: 1 }))[0] : undefined);
  const totalRows = Number(head?.totalRows ?? 0);
  const hasMore = offset + rows.length < totalRows;
  return {
    starting_at: q.start.toISOString(),
    ending_at: q.end.toISOString(),
    bucket_width: q.width,
    group_by: [...q.groupBy],
    data: rows.map((r) => rowOf(q, r, lookups)),
    totals: head ? sums(head.totalEvents, head.totalQuantity, head.totalCost) : sums("0", "0", "0"),
    total_rows: totalRows,
    has_more: hasMore,
    next_page: hasMore ? cursorOf(q, offset + rows.length) : null,
  };
}

const CSV_CHUNK = 2_000;

/**
 * The whole report as CSV lines (CRLF), header first. Read in one statement before anything is
 * sent (one snapshot; a report over the limit throws ReportTooLarge, which the route answers as
 * a 400), then written out in chunks.
 */
export async function reportCsv(db: Db, q: ReportQuery): Promise<AsyncGenerator<string>> {
  const [rows, names] = await Promise.all([
    reportRows(db, q, { offset: 0, limit: REPORT_MAX_CSV_ROWS + 1 }),
    namesFor(db, q),
  ]);
  if (rows.length > REPORT_MAX_CSV_ROWS) throw new ReportTooLarge(Number(rows[0]?.totalRows ?? rows.length));
  const lookups = { names, rules: await rulesFor(db, q, rows) };
  const header = reportCsvHeaders(q.groupBy);
  async function* lines(): AsyncGenerator<string> {
    yield `${Papa.unparse([header], { newline: "\r\n" })}\r\n`;
    for (let i = 0; i < rows.length; i += CSV_CHUNK) {
      const cells = rows.slice(i, i + CSV_CHUNK).map((r) => reportCsvCells(rowOf(q, r, lookups), q.groupBy));
      yield `${Papa.unparse(cells, { newline: "\r\n" })}\r\n`;
    }
  }
  return lines();
}
