// The report's one query: usage summed per bucket and group_by values, over the rollups the
// dashboard reads (usage_daily_coarse, usage_daily) when they can answer, else over the raw events,
// with the dashboard's filter SQL (usage-sql.ts), so both count exactly the same usage.

import { and, eq, gte, lt, not, type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { BucketWidth, ReportGroupBy } from "../../../contract/usage-report";
import { floorUtcSql } from "../../../contract/utc-calendar";
import { evalRuns, usageDaily, usageDailyCoarse, usageDailyMid, usageEvents } from "../../db/schema";
import type { Db } from "../../platform/database";
import { readsRawEvents, type UsageFilters } from "./filters";
import { isMidnight, WIDTH_UNIT } from "./report-buckets";
import {
  coarseFilter,
  dailyDims,
  dimensionFilter,
  evalTypeGroupOf,
  eventDims,
  midFilter,
  searchFilter,
  usesCoarseRollup,
  usesMidRollup,
  type WorkspaceMatches,
} from "./sql";

export type ReportQuery = {
  organizationUuid: string;
  /** [start, end) */
  start: Date;
  end: Date;
  width: BucketWidth;
  /** In REPORT_GROUP_BY's order. */
  groupBy: readonly ReportGroupBy[];
  filters: UsageFilters;
  /** The workspaces a search text matches by name (workspaceMatches); null without a search. */
  matches: WorkspaceMatches | null;
};

export type ReportSource = "usage_daily_coarse" | "usage_daily_mid" | "usage_daily" | "usage_events";

/**
 * The dimensions the daily rollups keep; eval runs, creators, API keys and price rules only come
 * with the raw events.
 */
const ROLLUP_GROUPS: readonly ReportGroupBy[] = ["workspace", "eval_type", "operation", "modality"];

/**
 * Which table answers: a daily rollup when the buckets are days or longer, the period is whole UTC
 * days, there is no search or eval run filter and every group_by is a rollup column; then, as the
 * dashboard picks it, the smallest rollup that keeps the filtered and grouped dimensions: the
 * coarse one (no modality, jailbreak or ground truth), else the middle one (no modality), else
 * usage_daily. Else the raw events, of the period's monthly partitions only (the period bounds
 * occurred_at, the partition key).
 */
export function reportSource(q: ReportQuery): ReportSource {
  const rollup =
    q.width !== "1h" &&
    isMidnight(q.start) &&
    isMidnight(q.end) &&
    !readsRawEvents(q.filters) &&
    q.groupBy.every((g) => ROLLUP_GROUPS.includes(g));
  if (!rollup) return "usage_events";
  if (q.groupBy.includes("modality")) return "usage_daily";
  if (usesCoarseRollup(q.filters)) return "usage_daily_coarse";
  return usesMidRollup(q.filters) ? "usage_daily_mid" : "usage_daily";
}

/** The bucket's start as a UTC timestamp (no bind parameters: it reads the same in every clause). */
const bucketSql = (ts: string, width: BucketWidth): SQL => sql.raw(floorUtcSql(ts, WIDTH_UNIT[width]));

type Shape = {
  table: typeof usageEvents | typeof usageDaily | typeof usageDailyMid | typeof usageDailyCoarse;
  ts: string;
  where: SQL | undefined;
  /** group_by api_key: the events' runs (left join: at most one row per event, so the sums stay the same). */
  runs?: SQL;
  dims: Record<ReportGroupBy, SQL | null>;
  events: SQL;
  quantity: SQL;
  cost: SQL;
};

function shapeOf(q: ReportQuery, source: ReportSource): Shape {
  const f = q.filters;
  if (source === "usage_events") {
    const e = usageEvents;
    return {
      table: e,
      ts: `("usage_events"."occurred_at" at time zone 'UTC')`,
      where: and(
        eq(e.organizationUuid, q.organizationUuid),
        gte(e.occurredAt, q.start),
        lt(e.occurredAt, q.end),
        f.evalRun ? eq(e.evalRunUuid, f.evalRun) : undefined,
        // A rule's events are those it priced: never the adjustments that name it.
        f.priceRule ? and(eq(e.priceRuleUuid, f.priceRule), not(e.adjustment)) : undefined,
        dimensionFilter(eventDims, f),
        searchFilter(f.search, q.matches),
      ),
      dims: {
        workspace: sql`${e.workspaceUuid}`,
        eval_type: evalTypeGroupOf(e.evalType),
        operation: sql`${e.operation}`,
        modality: sql`${e.modality}`,
        eval_run: sql`${e.evalRunUuid}`,
        created_by: sql`${e.createdBy}`,
        api_key: sql`${evalRuns.startedByApiKeyId}`,
        price_rule: sql`case when ${e.adjustment} then null else ${e.priceRuleUuid} end`,
      },
      // Only a run of the event's own organization counts: a run id named by another tenant's
      // events never maps them to this tenant's keys (nor the reverse).
      runs: q.groupBy.includes("api_key")
        ? and(eq(evalRuns.evalRunUuid, e.evalRunUuid), eq(evalRuns.organizationUuid, e.organizationUuid))
        : undefined,
      events: sql`count(*)`,
      quantity: sql`sum(${e.quantity})`,
      cost: sql`sum(${e.costMicros})`,
    };
  }
  const t =
    source === "usage_daily_coarse"
      ? usageDailyCoarse
      : source === "usage_daily_mid"
        ? usageDailyMid
        : usageDaily;
  const filter =
    source === "usage_daily_coarse"
      ? coarseFilter(f)
      : source === "usage_daily_mid"
        ? midFilter(f)
        : dimensionFilter(dailyDims, f);
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return {
    table: t,
    ts: `("${source}"."day")::timestamp`,
    where: and(
      eq(t.organizationUuid, q.organizationUuid),
      gte(t.day, day(q.start)),
      lt(t.day, day(q.end)),
      filter,
    ),
    dims: {
      workspace: sql`${t.workspaceUuid}`,
      eval_type: evalTypeGroupOf(t.evalType),
      operation: sql`${t.operation}`,
      modality: source === "usage_daily" ? sql`${usageDaily.modality}` : null,
      eval_run: null,
      created_by: null,
      api_key: null,
      price_rule: null,
    },
    events: sql`sum(${t.eventCount})`,
    quantity: sql`sum(${t.quantitySum})`,
    cost: sql`sum(${t.costMicrosSum})`,
  };
}

/** One row as the database answers it (sums as text: bigint sums stay exact). */
export type ReportSqlRow = {
  bucket: string;
  workspace?: string | null;
  eval_type?: string;
  operation?: string;
  modality?: string;
  eval_run?: string | null;
  created_by?: string | null;
  api_key?: string | null;
  price_rule?: string | null;
  events: string;
  quantity: string;
  cost: string;
  totalRows: string;
  totalEvents: string;
  totalQuantity: string;
  totalCost: string;
};

/**
 * A report row's place in the report's order: its bucket (as the row's `bucket` text), then its
 * group_by values in REPORT_GROUP_BY's order (null for none). The pages' keyset cursor.
 */
export type ReportKey = readonly (string | null)[];

/** The key of a row of reportRows. */
export const keyOf = (q: ReportQuery, r: ReportSqlRow): ReportKey => [
  r.bucket,
  ...q.groupBy.map((g) => r[g] ?? null),
];

/**
 * Every grouped row of the report, unordered, each carrying the whole report's row count and sums
 * (window functions over the grouped rows): columns named as ReportSqlRow, plus "b", the bucket as
 * a timestamp, which orders the rows and compares with a cursor (cheaper than its text).
 */
export function reportGroupedQuery(db: Db, q: ReportQuery) {
  const s = shapeOf(q, reportSource(q));
  const bucket = bucketSql(s.ts, q.width);
  const fields: Record<string, SQL.Aliased> = {
    bucket: sql<string>`to_char(${bucket}, 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`.as("bucket"),
  };
  for (const g of q.groupBy) {
    const dim = s.dims[g];
    if (!dim) throw new Error(`unreachable: ${g} is not a column of the report's source`);
    fields[g] = sql`${dim}`.as(g);
  }
  // The group_by values are grouped by position: the eval type group's expression carries bind
  // parameters, which would not read as the same expression in GROUP BY.
  const keys = Array.from({ length: q.groupBy.length }, (_, i) => `${i + 2}`);
  Object.assign(fields, {
    b: sql`${bucket}`.as("b"),
    events: sql`(${s.events})::text`.as("events"),
    quantity: sql`coalesce(${s.quantity}, 0)::text`.as("quantity"),
    cost: sql`coalesce(${s.cost}, 0)::text`.as("cost"),
    totalRows: sql`(count(*) over ())::text`.as("totalRows"),
    totalEvents: sql`(sum(${s.events}) over ())::text`.as("totalEvents"),
    totalQuantity: sql`coalesce(sum(${s.quantity}) over (), 0)::text`.as("totalQuantity"),
    totalCost: sql`coalesce(sum(${s.cost}) over (), 0)::text`.as("totalCost"),
  });
  const from = db.select(fields).from(s.table);
  return (s.runs ? from.leftJoin(evalRuns, s.runs) : from)
    .where(s.where)
    .groupBy(sql.join([bucket, ...keys.map((k) => sql.raw(k))], sql`, `));
}

const col = (name: string) => sql.raw(`r."${name}"`);

/** Rows strictly after `key` in the report's order (bucket, then group_by values, nulls first). */
function afterKey(q: ReportQuery, key: ReportKey): SQL {
  const cols = [col("b"), ...q.groupBy.map(col)];
  const value = (i: number) => (i === 0 ? sql`${key[0]}::timestamp` : sql`${key[i]}`);
  const same = (i: number) => (key[i] === null ? sql`${cols[i]} is null` : sql`${cols[i]} = ${value(i)}`);
  // A null sorts first, so nothing is before it and only a non-null value is after it.
  const after = (i: number) =>
    key[i] === null ? sql`${cols[i]} is not null` : sql`${cols[i]} > ${value(i)}`;
  const alternatives = cols.map((_, i) =>
    sql.join([...Array.from({ length: i }, (_, j) => same(j)), after(i)], sql` and `),
  );
  return sql`(${sql.join(alternatives, sql` or `)})`;
}

/**
 * The report's rows in its order (by bucket, then the group_by values, nulls first) from after
 * `after` on, at most `limit` of them: one statement, so a page and its totals are of one snapshot.
 * The totals are computed over every grouped row before the cursor's condition picks the page.
 */
export function reportRowsSql(db: Db, q: ReportQuery, page: { after?: ReportKey | null; limit?: number }) {
  const order = sql.join([col("b"), ...q.groupBy.map((g) => sql`${col(g)} nulls first`)], sql`, `);
  return sql`select * from (${reportGroupedQuery(db, q)}) r${page.after ? sql` where ${afterKey(q, page.after)}` : sql``} order by ${order}${page.limit === undefined ? sql`` : sql` limit ${page.limit}`}`;
}

/** reportRowsSql as its text and parameters (EXPLAIN in tests and benchmarks, cursors). */
export const reportRowsStatement = (
  db: Db,
  q: ReportQuery,
  page: { after?: ReportKey | null; limit?: number },
) => new PgDialect().sqlToQuery(reportRowsSql(db, q, page));

/** The rows of reportRowsSql. */
export const reportRows = async (
  db: Db,
  q: ReportQuery,
  page: { after?: ReportKey | null; limit: number },
): Promise<ReportSqlRow[]> =>
  ((await db.execute(reportRowsSql(db, q, page))) as unknown as { rows: ReportSqlRow[] }).rows;
