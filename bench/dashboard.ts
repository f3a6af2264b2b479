// Billing dashboard data at scale: the console's three calls (GET /v1/usage/summary, /series and
// the first /records page, sent together as the page does) over real HTTP for billing cycles of
// growing size, against DuckDB computing the same aggregates (per operation count and cost, by
// workspace, by eval type, the filter options, the daily series per eval type, and the first page
// of records newest first with its total) over the same rows in memory.
//
// Usage: [DATABASE_URL=postgres://…] npx tsx bench/dashboard.ts [sizes=10k,100k] [--reps 20]
//          [--seed 11] [--budget 10] [--explain] [--no-search] [--search-max 1M] [--keep] [--reuse <database>]
//          [--only <text>] [--duck-once]
// With DATABASE_URL: PostgreSQL, in a scratch database created and dropped on that server;
// without it: PGlite. Each size is one closed monthly cycle of one organization (all sizes live in
// the same tables). Data is loaded in bulk, not over HTTP: the generator's events are validated and
// priced as ingestion does, COPYed into usage_events, then the rollups (usage_daily,
// usage_daily_mid and usage_daily_coarse) are built with insert-selects, the same sums ingestion keeps, and the usage
// version is raised as an ingestion does. Each case is measured twice: cache misses (the usage
// version raised before every page load, as the next ingestion does, so every call computes) and
// cache hits (the same page loaded again). --explain prints EXPLAIN ANALYZE of the records
// queries and the rollup read at the largest size (PostgreSQL); --keep keeps the scratch database
// and --reuse measures a kept one again (its cycles give the sizes; DuckDB reads its rows back).
// Measured runs per case stop at --reps or after --budget seconds (at least 3 runs). The search case
// cases (raw events: a common word, and one eval run's id, which a few hundred events share) run
// for cycles up to --search-max events. --only runs (and explains) just the filter sets whose name
// contains the text, e.g. --only search. The Eval Runs list's first page (GET /v1/eval-runs of the
// cycle, misses and hits as above) is measured per cycle too, beside the unfiltered page as its
// floor (--only "eval runs" runs just it; --no-runs leaves it out). --root <checkout> runs another
// checkout's server (e.g. a git worktree of an earlier commit) on the same data, for before/after;
// --no-check leaves DuckDB out (no read-back of a reused database, no checks), for such a run.

import { once } from "node:events";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { DuckDBInstance } from "@duckdb/node-api";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { NAMED_EVAL_TYPES } from "../contract/eval-types";
import { formatUsdExact } from "../contract/money";
import { priceRules, usageEvents, workspaces } from "../server/db/schema";
import type { Cycle } from "../server/metering/billing/cycles";
import { generateUsageEvents } from "../server/metering/ingestion/generate";
import { rebuildRollupsSql } from "../server/metering/shared/rollups";
import { rollupSetsQuery } from "../server/metering/usage/aggregates";
import { NO_FILTERS, type UsageFilters } from "../server/metering/usage/filters";
import { orderFor, priceRuleJoin, recordColumns } from "../server/metering/usage/records";
import { eventWhere, workspaceJoin, workspaceMatches } from "../server/metering/usage/sql";
import type { Db } from "../server/platform/database";
import {
  copyFromStdin,
  copyToStdout,
  csvLine,
  EVENT_COLUMNS,
  existingDatabase,
  machine,
  mib,
  parseCount,
  rowUuid,
  type Server,
  scratchDatabase,
  short,
  startServer,
  summarize,
} from "./metering-lib";
import { backendLabel, type Figure, startResults } from "./results";

const { values: flags, positionals: positional } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: {
    reps: { type: "string" },
    seed: { type: "string" },
    explain: { type: "boolean" },
    "no-search": { type: "boolean" },
    keep: { type: "boolean" },
    reuse: { type: "string" },
    "search-max": { type: "string" },
    budget: { type: "string" },
    only: { type: "string" },
    "duck-once": { type: "boolean" },
    "no-runs": { type: "boolean" },
    "no-check": { type: "boolean" },
    root: { type: "string" },
  },
});
const sizes = (positional.length ? positional.join(",") : "10k,100k")
  .split(",")
  .filter(Boolean)
  .map(parseCount)
  .sort((a, b) => a - b);
const reps = Number(flags.reps ?? 20);
const seed = Number(flags.seed ?? 11);
const explain = flags.explain === true;
const withSearch = flags["no-search"] !== true;
const keep = flags.keep === true;
const reuse = flags.reuse;
const searchMax = parseCount(flags["search-max"] ?? "1M");
const budgetMs = Number(flags.budget ?? 10) * 1000;
const only = flags.only;
// DuckDB computes each case once (for the check), untimed beyond that one run: big cycles are slow there.
const duckOnce = flags["duck-once"] === true;
const noCheck = flags["no-check"] === true;
const RUNS_CASE = "eval runs (list, first page)";
const withRuns = flags["no-runs"] !== true && (!only || RUNS_CASE.includes(only));

/**
 * Runs `once` for warm-up (twice, or once when a run takes over 2 s), then up to `n` measured times,
 * stopping early once `budgetMs` is spent and at least 3 runs are measured (big cycles are slow).
 */
async function timeBoxed<T>(n: number, once: () => Promise<T>): Promise<T[]> {
  let t = performance.now();
  await once();
  if (performance.now() - t < 2000) await once();
  const out: T[] = [];
  t = performance.now();
  while (out.length < n && (out.length < 3 || performance.now() - t < budgetMs)) out.push(await once());
  return out;
}
const FILE_ROWS = 250_000;

type FilterSet = { name: string; query: Record<string, string | string[]>; f: UsageFilters; reps: number };

function filterSets(workspaceUuids: readonly string[], runId: string | null): FilterSet[] {
  const sets: FilterSet[] = [
    { name: "default (no filters)", query: {}, f: NO_FILTERS, reps },
    {
      name: "eval_type×2 + jailbreak=non",
      query: { eval_type: ["accuracy", "safety"], jailbreak: "non" },
      f: { ...NO_FILTERS, evalTypes: ["accuracy", "safety"], jailbreak: "non" },
      reps,
    },
    {
      name: "workspace + ground_truth + modality",
      query: { workspace_uuid: [workspaceUuids[1]!], ground_truth: "with", modality: ["text"] },
      f: { ...NO_FILTERS, workspaceUuids: [workspaceUuids[1]!], groundTruth: "with", modalities: ["text"] },
      reps,
    },
  ];
  if (withSearch)
    sets.push({
      name: 'search "many-shot" (raw events)',
      query: { search: "many-shot" },
      f: { ...NO_FILTERS, search: "many-shot" },
      reps: Math.min(reps, 5),
    });
  if (withSearch && runId)
    sets.push({
      name: "search an eval run id (raw events)",
      query: { search: runId },
      f: { ...NO_FILTERS, search: runId },
      reps,
    });
  return only ? sets.filter((s) => s.name.includes(only)) : sets;
}

const qs = (q: Record<string, string | string[]>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
  return p.toString();
};

type Api = {
  summary: { totals: { events: number; cost: string } };
  records: { total: number; records: { usage_event_uuid: string }[] };
  series: { buckets: unknown[] };
};

/** The page's three calls, in parallel; per-call latencies and the wall time of the three. */
async function dashboardOnce(server: Server, cycleUuid: string, q: Record<string, string | string[]>) {
  const headers = { "x-api-key": server.info.apiKey };
  const base = `${server.base}/v1/usage`;
  const query = qs({ ...q, billing_cycle_uuid: cycleUuid });
  const t0 = performance.now();
  const timed = async (path: string) => {
    const res = await fetch(`${base}/${path}`, { headers });
    const json = await res.json();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return { json, ms: performance.now() - t0 };
  };
  const [summary, series, records] = await Promise.all([
    timed(`summary?${query}`),
    timed(`series?${query}&grouping=daily`),
    timed(`records?${query}&page=1&page_size=10&sort=-date`),
  ]);
  return {
    wall: performance.now() - t0,
    parts: { summary: summary.ms, series: series.ms, records: records.ms },
    api: { summary: summary.json, series: series.json, records: records.json } as Api,
  };
}

type RunsPage = { total: number; eval_runs: { eval_run_uuid: string; events: number; cost: string }[] };

/** The Eval Runs page's call: the cycle's runs, first page, newest first (the page's default). */
async function evalRunsOnce(server: Server, cycleUuid: string) {
  const t0 = performance.now();
  const res = await fetch(`${server.base}/v1/eval-runs?billing_cycle_uuid=${cycleUuid}&page=1&page_size=20`, {
    headers: { "x-api-key": server.info.apiKey },
  });
  const json = (await res.json()) as RunsPage;
  if (res.status !== 200) throw new Error(`eval-runs: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return { ms: performance.now() - t0, page: json };
}

/** The same page from the raw rows: run count, and the first 20 runs by start with events and cost. */
async function duckRuns(duck: Duck, cycle: Cycle): Promise<string> {
  const where = duckWhere(cycle, NO_FILTERS);
  const [n] = await duck.rows(
    `select count(distinct eval_run_uuid)::varchar as n from ev where ${where} and eval_run_uuid is not null`,
  );
  const page = await duck.rows(
    `select eval_run_uuid as run, count(*)::varchar as events, sum(cost_micros)::varchar as cost from ev
      where ${where} and eval_run_uuid is not null
      group by eval_run_uuid order by min(occurred_at) desc, eval_run_uuid desc limit 20`,
  );
  return `${n?.n} runs: ${page.map((r) => `${r.run} ${r.events} $${formatUsdExact(BigInt(String(r.cost)))}`).join(", ")}`;
}

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const inList = (xs: readonly string[]) => xs.map(lit).join(", ");

const duckEvalTypeGroup = `(case lower(eval_type) ${[...NAMED_EVAL_TYPES].map(([raw, group]) => `when ${lit(raw)} then ${lit(group)}`).join(" ")} else eval_type end)`;

function duckWhere(cycle: Cycle, f: UsageFilters): string {
  const w = [
    `ev.organization_uuid = ${lit(cycle.organizationUuid)}`,
    `occurred_at >= ${lit(`${cycle.startDate} 00:00:00`)}`,
    cycle.endDate ? `occurred_at < ${lit(`${cycle.endDate} 00:00:00`)}` : "",
    f.workspaceUuids.length
      ? `(ev.workspace_uuid is null or ev.workspace_uuid in (${inList(f.workspaceUuids)}))`
      : "",
    // By group, as the product filters: hallucination is accuracy (contract/eval-types.ts).
    f.evalTypes.length ? `(eval_type = '' or ${duckEvalTypeGroup} in (${inList(f.evalTypes)}))` : "",
    f.operations.length ? `(operation = '' or operation in (${inList(f.operations)}))` : "",
    f.modalities.length ? `(modality = '' or modality in (${inList(f.modalities)}))` : "",
    f.groundTruth ? `has_ground_truth = ${f.groundTruth === "with"}` : "",
    f.jailbreak ? `is_jailbreak = ${f.jailbreak === "only"}` : "",
  ];
  if (f.search) {
    const p = lit(`%${f.search}%`);
    const cols = [
      "name",
      "operation",
      "eval_type",
      "modality",
      "created_by",
      "eval_uuid",
      "eval_run_uuid",
      "notes",
      "rule_metric",
    ];
    w.push(
      `(${[
        ...cols.map((c) => `coalesce(ev.${c}, '') ilike ${p}`),
        `coalesce(w.name, 'Unknown Workspace') ilike ${p}`,
        `quantity::varchar ilike ${p}`,
        `rtrim(rtrim(printf('%.6f', cost_micros / 1000000.0), '0'), '.') ilike ${p}`,
      ].join(" or ")})`,
    );
  }
  return w.filter(Boolean).join(" and ");
}

type Duck = Awaited<ReturnType<typeof openDuck>>;

async function openDuck() {
  const instance = await DuckDBInstance.create(":memory:");
  const con = await instance.connect();
  const rows = async (q: string) =>
    (await con.runAndReadAll(q)).getRowObjectsJS() as Record<string, unknown>[];
  return { con, rows };
}

async function duckDashboard(duck: Duck, cycle: Cycle, f: UsageFilters) {
  // The filter is applied once into a narrow temporary table that every aggregate reads; the records
  // page (10 rows, every column) is a top-N straight from the rows.
  const sums =
    "count(*)::varchar as events, sum(quantity)::varchar as count, sum(cost_micros)::varchar as cost";
  const where = `from ev left join ws w on w.workspace_uuid = ev.workspace_uuid where ${duckWhere(cycle, f)}`;
  const t0 = performance.now();
  await duck.rows(
    `create or replace temp table f as select occurred_at, ev.workspace_uuid, operation, rule_metric, eval_type, quantity, cost_micros ${where}`,
  );
  const byOperation = await duck.rows(
    `select operation, rule_metric, ${sums} from f group by 1, 2 order by 1, 2`,
  );
  const byWorkspace = await duck.rows(
    `select workspace_uuid, ${sums} from f group by 1 order by (workspace_uuid is null), sum(cost_micros) desc, sum(quantity) desc limit 7`,
  );
  const byEvalType = await duck.rows(
    `select eval_type, ${sums} from f group by 1 order by sum(cost_micros) desc, sum(quantity) desc, 1 limit 5`,
  );
  const options = await duck.rows(
    `select list(distinct eval_type) as t, list(distinct operation) as o, list(distinct modality) as m, list(distinct workspace_uuid) as w from ev where ${duckWhere(cycle, NO_FILTERS)}`,
  );
  const series = await duck.rows(
    `select cast(occurred_at as date)::varchar as day, eval_type, ${sums} from f group by 1, 2 order by 1, 2`,
  );
  const [count] = await duck.rows("select count(*)::varchar as n from f");
  const page = await duck.rows(
    `select usage_event_uuid, occurred_at, ev.name, operation, eval_type, cost_micros, coalesce(w.name, 'Unknown Workspace') as workspace_name ${where} order by occurred_at desc, usage_event_uuid desc limit 10`,
  );
  const ms = performance.now() - t0;
  let events = 0;
  let cost = 0n;
  for (const r of byOperation) {
    events += Number(r.events);
    cost += BigInt(String(r.cost));
  }
  return {
    ms,
    check: {
      events,
      cost: formatUsdExact(cost),
      total: Number(count?.n ?? 0),
      firstPage: page.map((r) => String(r.usage_event_uuid)),
      seriesRows: series.length,
      parts: byWorkspace.length + byEvalType.length + options.length,
    },
  };
}

async function writeCsv(
  dir: string,
  size: number,
  cycle: Cycle,
  info: Server["info"],
  rules: Awaited<ReturnType<Server["prices"]>>,
  uuidBase: number,
): Promise<string[]> {
  const files: string[] = [];
  const now = new Date();
  const from = new Date(`${cycle.startDate}T00:00:00Z`);
  const to = new Date(`${cycle.endDate}T00:00:00Z`);
  let i = 0;
  let out: ReturnType<typeof createWriteStream> | null = null;
  let buf: string[] = [];
  const flush = async () => {
    if (!out || !buf.length) return;
    if (!out.write(buf.join(""))) await once(out, "drain");
    buf = [];
  };
  for (const e of generateUsageEvents({
    seed: seed + size,
    count: size,
    from,
    to,
    workspaceUuids: info.workspaceUuids,
    createdBy: info.createdBy,
    idPrefix: `cycle-${cycle.startDate}`,
  })) {
    if (i % FILE_ROWS === 0) {
      await flush();
      if (out) {
        out.end();
        await once(out, "finish");
      }
      const file = join(dir, `events-${cycle.startDate}-${files.length}.csv`);
      files.push(file);
      out = createWriteStream(file);
    }
    buf.push(csvLine(info.orgId, rules, e, now, rowUuid(uuidBase + i)));
    if (buf.length >= 5000) await flush();
    i++;
  }
  await flush();
  if (out) {
    out.end();
    await once(out, "finish");
  }
  return files;
}

const monthAfter = (day: string) => {
  const d = new Date(`${day}T00:00:00Z`);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
};

type Row = {
  size: number;
  filter: string;
  /** The three calls together: cache misses (every call computes) and cache hits. */
  miss: { p50: number; p95: number };
  hit: { p50: number; p95: number };
  parts: Record<"summary" | "series" | "records", number>;
  hitParts: Record<"summary" | "series" | "records", number>;
  duck: { p50: number; p95: number };
  check: string;
};

async function main() {
  const url = process.env.DATABASE_URL;
  const scratch = url
    ? await (reuse ? existingDatabase(url, reuse) : scratchDatabase(url, "bench_dashboard"))
    : null;
  // A kept database is reused by a later run, which must read the instance secrets the first run
  // stored in it: both runs use one data directory per database (it holds the secrets key file).
  if (scratch && (keep || reuse)) {
    process.env.BENCH_DATA_DIR = join(homedir(), ".cache", "eval-console-bench", scratch.name);
    console.log(`database ${scratch.name}, server data directory ${process.env.BENCH_DATA_DIR}`);
  }
  const server = await startServer({
    ...(scratch ? { databaseUrl: scratch.url } : {}),
    ...(flags.root ? { root: flags.root } : {}),
  }).catch(async (e) => {
    await scratch?.drop();
    throw e;
  });
  const dir = mkdtempSync(join(tmpdir(), "dashboard-csv-"));
  const pgClient = scratch ? new pg.Client({ connectionString: scratch.url }) : null;
  await pgClient?.connect();
  const duck = await openDuck();
  const rows: Row[] = [];
  const runRows: {
    size: number;
    miss: { p50: number; p95: number };
    hit: { p50: number; p95: number };
    check: string;
  }[] = [];
  const loads: string[] = [];
  const explains: string[] = [];
  let rssLoad = 0;
  let rssQueries = 0;
  let bumpVersion: () => Promise<unknown> = async () => {};
  const results = startResults("dashboard", backendLabel(), { sizes: sizes.map(short), reps, budgetMs });
  try {
    const { orgId, workspaceUuids } = server.info;
    // What every ingestion into the organization does to the usage caches' key (rollups.ts).
    bumpVersion = () =>
      server.sql(
        `insert into usage_versions (organization_uuid, version) values ('${orgId}', 1)
         on conflict (organization_uuid) do update set version = usage_versions.version + 1`,
      );
    const rules = await server.prices();
    await duck.rows(
      `create table ev (usage_event_uuid varchar, ${EVENT_COLUMNS.map((c) => `${c} ${duckType(c)}`).join(", ")})`,
    );
    const names = await server.sql<{ workspace_uuid: string; name: string }>(
      `select workspace_uuid::text, name from workspaces where organization_uuid = '${orgId}'`,
    );
    await duck.rows("create table ws (workspace_uuid varchar, name varchar)");
    await duck.rows(
      `insert into ws values ${names.map((n) => `(${lit(n.workspace_uuid)}, ${lit(n.name)})`).join(", ")}`,
    );

    const cycles: Cycle[] = [];
    if (reuse) {
      // A kept database: its closed cycles and their sizes, and DuckDB gets the same rows back.
      const found = await server.sql<{ uuid: string; start: string; end: string; n: string }>(
        `select c.billing_cycle_uuid::text as uuid, c.start_date::text as start, c.end_date::text as end,
                (select coalesce(sum(event_count), 0) from usage_daily d where d.organization_uuid = c.organization_uuid
                    and d.day >= c.start_date and d.day < c.end_date)::text as n
           from billing_cycles c where c.organization_uuid = '${orgId}' and c.end_date is not null order by c.start_date`,
      );
      sizes.splice(0, sizes.length, ...found.map((c) => Number(c.n)));
      for (const c of found) {
        cycles.push({
          billingCycleUuid: c.uuid,
          organizationUuid: orgId,
          startDate: c.start,
          endDate: c.end,
        });
        if (noCheck) {
          loads.push(`${short(Number(c.n)).padStart(5)} events: reused; not read back (--no-check)`);
          continue;
        }
        const file = join(dir, `events-${c.start}.csv`);
        const out = createWriteStream(file);
        const t = performance.now();
        await copyToStdout(
          pgClient!,
          `copy (select usage_event_uuid, ${EVENT_COLUMNS.map((x) => (x === "occurred_at" ? "occurred_at at time zone 'UTC'" : x)).join(", ")} from usage_events where organization_uuid = '${orgId}' and occurred_at >= '${c.start}' and occurred_at < '${c.end}') to stdout with (format csv)`,
          (chunk) => out.write(chunk),
        );
        out.end();
        await once(out, "finish");
        await duck.rows(`insert into ev select * from ${duckCsv([file])}`);
        rmSync(file, { force: true });
        loads.push(
          `${short(Number(c.n)).padStart(5)} events: reused; DuckDB read back in ${((performance.now() - t) / 1000).toFixed(1)} s`,
        );
      }
    } else {
      // One closed monthly cycle per size, from January 2025 on, and the open current one after them.
      let start = "2025-01-01";
      for (const _ of sizes) {
        const end = monthAfter(start);
        const [c] = await server.sql<{ uuid: string }>(
          `insert into billing_cycles (organization_uuid, start_date, end_date) values ('${orgId}', '${start}', '${end}') returning billing_cycle_uuid::text as uuid`,
        );
        cycles.push({ billingCycleUuid: c!.uuid, organizationUuid: orgId, startDate: start, endDate: end });
        start = end;
      }
      await server.sql(
        `insert into billing_cycles (organization_uuid, start_date, end_date) values ('${orgId}', '${start}', null)`,
      );
    }

    let uuidBase = 0;
    for (const [k, size] of (reuse ? [] : sizes).entries()) {
      const cycle = cycles[k]!;
      let t = performance.now();
      const files = await writeCsv(dir, size, cycle, server.info, rules, uuidBase);
      uuidBase += size;
      const genMs = performance.now() - t;
      const bytes = files.reduce((s, f) => s + statSync(f).size, 0);
      await server.rss();
      t = performance.now();
      const columns = ["usage_event_uuid", ...EVENT_COLUMNS];
      // With usage_events partitioned by month, the month's partition must exist before COPY.
      await server.sql(
        `do $$ begin if to_regprocedure('usage_events_ensure_month(date)') is not null then perform usage_events_ensure_month('${cycle.startDate}'); end if; end $$`,
      );
      let copied = 0;
      if (pgClient) {
        for (const file of files)
          copied += await copyFromStdin(
            pgClient,
            `copy usage_events (${columns.join(", ")}) from stdin with (format csv)`,
            createReadStream(file, { highWaterMark: 1 << 20 }),
          );
      } else copied = await server.copyFiles("usage_events", columns, files);
      const copyMs = performance.now() - t;
      t = performance.now();
      await server.sql(
        `begin; ${rebuildRollupsSql(orgId, cycle.startDate, cycle.endDate ?? monthAfter(cycle.startDate)).join(";\n")}; commit`,
      );
      const rollupMs = performance.now() - t;
      t = performance.now();
      await server.sql("vacuum analyze usage_events");
      await server.sql("vacuum analyze usage_daily");
      await server.sql("vacuum analyze usage_daily_mid");
      await server.sql("vacuum analyze usage_daily_coarse");
      const vacuumMs = performance.now() - t;
      rssLoad = Math.max(rssLoad, (await server.rss()).peak);
      if (copied !== size) throw new Error(`copied ${copied} of ${size}`);
      t = performance.now();
      await duck.rows(`insert into ev select * from ${duckCsv(files)}`);
      const duckMs = performance.now() - t;
      const [daily] = await server.sql<{ n: string; mid: string; coarse: string }>(
        `select (select count(*) from usage_daily where organization_uuid = '${orgId}' and day >= '${cycle.startDate}' and day < '${cycle.endDate}')::text as n,
                (select count(*) from usage_daily_mid where organization_uuid = '${orgId}' and day >= '${cycle.startDate}' and day < '${cycle.endDate}')::text as mid,
                (select count(*) from usage_daily_coarse where organization_uuid = '${orgId}' and day >= '${cycle.startDate}' and day < '${cycle.endDate}')::text as coarse`,
      );
      loads.push(
        `${short(size).padStart(5)} events (${mib(bytes)} CSV): generate+validate+price ${(genMs / 1000).toFixed(1)} s, ` +
          `COPY ${(copyMs / 1000).toFixed(1)} s (${((size / copyMs) * 1000).toFixed(0)} rows/s), rollups insert-select ${(rollupMs / 1000).toFixed(1)} s ` +
          `→ ${daily?.n} usage_daily rows, ${daily?.mid} usage_daily_mid rows, ${daily?.coarse} usage_daily_coarse rows, vacuum analyze ${(vacuumMs / 1000).toFixed(1)} s; DuckDB load ${(duckMs / 1000).toFixed(1)} s`,
      );
      console.log(`  loaded ${loads[loads.length - 1]?.trim()}`);
      for (const f of files) rmSync(f, { force: true });
    }

    // Queries: every size, every filter set; warm-up runs, then up to `reps` measured runs.
    const runIds: (string | null)[] = [];
    for (const [k, size] of sizes.entries()) {
      const cycle = cycles[k]!;
      // The newest event's eval run: what a user pastes to find one run's usage.
      const [newest] = await server.sql<{ id: string }>(
        `select eval_run_uuid as id from usage_events where organization_uuid = '${orgId}' and occurred_at >= '${cycle.startDate}' and occurred_at < '${cycle.endDate}' and eval_run_uuid is not null order by occurred_at desc, usage_event_uuid desc limit 1`,
      );
      runIds[k] = newest?.id ?? null;
      for (const set of filterSets(workspaceUuids, runIds[k] ?? null)) {
        if (set.f.search && size > searchMax) continue;
        await server.rss();
        // Misses: the usage version raised before every page load (outside the timing), as the
        // next ingestion into the organization does, so all three calls compute. Hits: the same
        // page again.
        const measure = (cold: boolean) =>
          timeBoxed(set.reps, async () => {
            if (cold) await bumpVersion();
            return dashboardOnce(server, cycle.billingCycleUuid, set.query);
          });
        const missRuns = await measure(true);
        const hitRuns = await measure(false);
        const apiRuns = [...missRuns, ...hitRuns];
        const last: Api | null = apiRuns[apiRuns.length - 1]?.api ?? null;
        const p95parts = (runs: typeof apiRuns) => ({
          summary: summarize(runs.map((r) => r.parts.summary)).p95,
          series: summarize(runs.map((r) => r.parts.series)).p95,
          records: summarize(runs.map((r) => r.parts.records)).p95,
        });
        rssQueries = Math.max(rssQueries, (await server.rss()).peak);
        const duckMs: number[] = [];
        let check: Awaited<ReturnType<typeof duckDashboard>>["check"] | null = null;
        for (const d of noCheck
          ? []
          : duckOnce
            ? [await duckDashboard(duck, cycle, set.f)]
            : await timeBoxed(set.reps, () => duckDashboard(duck, cycle, set.f))) {
          check = d.check;
          duckMs.push(d.ms);
        }
        const same =
          !noCheck &&
          last &&
          check &&
          last.summary.totals.events === check.events &&
          last.summary.totals.cost === check.cost &&
          last.records.total === check.total &&
          last.records.records.map((r) => r.usage_event_uuid).join() === check.firstPage.join();
        rows.push({
          size,
          filter: set.name,
          miss: summarize(missRuns.map((r) => r.wall)),
          hit: summarize(hitRuns.map((r) => r.wall)),
          parts: p95parts(missRuns),
          hitParts: p95parts(hitRuns),
          duck: summarize(duckMs),
          check: noCheck
            ? "not checked (--no-check)"
            : same
              ? `same totals (${check?.events} events, $${check?.cost}, ${check?.total} records) and first page`
              : `MISMATCH api=${JSON.stringify(last?.summary.totals)} total=${last?.records.total} duck=${JSON.stringify({ events: check?.events, cost: check?.cost, total: check?.total })}`,
        });
        console.log(
          `  ${short(size)} ${set.name}: API p95 miss ${summarize(missRuns.map((r) => r.wall)).p95.toFixed(1)} ms, hit ${summarize(hitRuns.map((r) => r.wall)).p95.toFixed(1)} ms, DuckDB p95 ${summarize(duckMs).p95.toFixed(1)} ms`,
        );
      }
    }

    // The Eval Runs list of each cycle: a miss is the first load after an ingestion (the usage
    // version raised, as for the dashboard), a hit the same page again.
    for (const [k, size] of (withRuns ? sizes : []).entries()) {
      const cycle = cycles[k]!;
      const measure = (cold: boolean) =>
        timeBoxed(reps, async () => {
          if (cold) await bumpVersion();
          return evalRunsOnce(server, cycle.billingCycleUuid);
        });
      const missRuns = await measure(true);
      const hitRuns = await measure(false);
      const last = hitRuns[hitRuns.length - 1]?.page;
      const api = `${last?.total} runs: ${(last?.eval_runs ?? []).map((r) => `${r.eval_run_uuid} ${r.events} $${r.cost}`).join(", ")}`;
      const duckPage = noCheck ? null : await duckRuns(duck, cycle);
      runRows.push({
        size,
        miss: summarize(missRuns.map((r) => r.ms)),
        hit: summarize(hitRuns.map((r) => r.ms)),
        check: !duckPage
          ? "not checked (--no-check)"
          : api === duckPage
            ? `same run count (${last?.total}) and first page (runs, events, cost)`
            : `MISMATCH api=${api.slice(0, 300)} duck=${duckPage.slice(0, 300)}`,
      });
      console.log(
        `  ${short(size)} ${RUNS_CASE}: API p95 miss ${summarize(missRuns.map((r) => r.ms)).p95.toFixed(1)} ms, hit ${summarize(hitRuns.map((r) => r.ms)).p95.toFixed(1)} ms`,
      );
    }

    if (explain && pgClient)
      explains.push(
        ...(await explainQueries(
          pgClient,
          cycles[cycles.length - 1]!,
          workspaceUuids,
          runIds[cycles.length - 1] ?? null,
        )),
      );
  } finally {
    await pgClient?.end();
    await server.stop();
    if ((keep || reuse) && scratch) console.log(`kept database ${scratch.name} (drop it when done)`);
    else await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  }

  console.log(
    `\nBilling dashboard data (summary + series + first records page, sent in parallel), up to ${reps} runs or ${budgetMs / 1000} s per case`,
  );
  console.log(`backend: ${scratch ? scratch.version : "PGlite"}; machine: ${machine(scratch?.version)}`);
  console.log("bulk load:");
  for (const l of loads) console.log(`  ${l}`);
  const ms = (x: number) => x.toFixed(1).padStart(8);
  console.log(
    `\n${"events".padStart(6)} ${"filters".padEnd(36)} ${"miss p50".padStart(8)} ${"p95".padStart(8)} ${"hit p50".padStart(8)} ${"p95".padStart(8)} ${"DuckDB p50".padStart(11)} ${"p95".padStart(8)}   miss p95 per call: summary / series / records`,
  );
  for (const r of rows)
    console.log(
      `${short(r.size).padStart(6)} ${r.filter.padEnd(36)} ${ms(r.miss.p50)} ${ms(r.miss.p95)} ${ms(r.hit.p50)} ${ms(r.hit.p95)} ${r.duck.p50.toFixed(1).padStart(11)} ${ms(r.duck.p95)}   ${r.parts.summary.toFixed(0)} / ${r.parts.series.toFixed(0)} / ${r.parts.records.toFixed(0)} ms`,
    );
  const small = sizes[0]!;
  const big = sizes[sizes.length - 1]!;
  const figures: Figure[] = [];
  const slug = (name: string) =>
    name
      .replace(/[^a-z0-9]+/gi, "-")
      .replace(/^-|-$/g, "")
      .toLowerCase();
  for (const r of rows.filter((x) => x.size === big)) {
    const s = rows.find((x) => x.size === small && x.filter === r.filter);
    for (const kind of ["miss", "hit"] as const)
      figures.push({
        id: `${kind}-p95-${short(big)}-${slug(r.filter)}`,
        label: `${short(big)} ${r.filter}, cache ${kind}, p95 of the 3 calls`,
        value: Math.round(r[kind].p95 * 10) / 10,
        unit: "ms p95",
        ...(s && big !== small
          ? { ratio: Math.round((r[kind].p95 / s[kind].p95) * 100) / 100, baseline: `${short(small)} cycle` }
          : {}),
        target: { on: "value", op: "<", limit: 100 },
      });
  }
  // The Eval Runs list at the largest size: under 500 ms p95 on a miss; its floor is the unfiltered
  // dashboard page of the same cycle (the page's three calls from the rollups, also a miss).
  const floor = rows.find((x) => x.size === big && x.filter === "default (no filters)");
  for (const r of runRows.filter((x) => x.size === big))
    for (const kind of ["miss", "hit"] as const)
      figures.push({
        id: `eval-runs-${kind}-p95-${short(big)}`,
        label: `${short(big)} ${RUNS_CASE}, cache ${kind}, p95`,
        value: Math.round(r[kind].p95 * 10) / 10,
        unit: "ms p95",
        ...(floor
          ? {
              ratio: Math.round((r[kind].p95 / floor[kind].p95) * 100) / 100,
              baseline: `unfiltered dashboard, ${short(big)} cycle`,
            }
          : {}),
        target: { on: "value", op: "<", limit: 500 },
      });
  if (runRows.length) {
    console.log(
      `\n${"events".padStart(6)} ${RUNS_CASE.padEnd(36)} ${"miss p50".padStart(8)} ${"p95".padStart(8)} ${"hit p50".padStart(8)} ${"p95".padStart(8)}`,
    );
    for (const r of runRows)
      console.log(
        `${short(r.size).padStart(6)} ${"".padEnd(36)} ${ms(r.miss.p50)} ${ms(r.miss.p95)} ${ms(r.hit.p50)} ${ms(r.hit.p95)}`,
      );
  }
  if (big !== small) {
    console.log(`\n${short(big)} / ${short(small)} (API p95; target < 2x):`);
    for (const r of rows.filter((x) => x.size === big)) {
      const s = rows.find((x) => x.size === small && x.filter === r.filter);
      if (s)
        console.log(
          `  ${r.filter.padEnd(36)} miss ${(r.miss.p95 / s.miss.p95).toFixed(1)}x, hit ${(r.hit.p95 / s.hit.p95).toFixed(1)}x   (DuckDB ${(r.duck.p95 / s.duck.p95).toFixed(1)}x)`,
        );
    }
  }
  const file = results.save(figures, [
    `backend ${scratch ? scratch.version : "PGlite"}; ratios are ${short(big)} / ${short(small)} p95 (target < 2x)`,
  ]);
  console.log(`results: ${file}`);
  console.log("\nchecks (API vs DuckDB):");
  for (const r of rows) console.log(`  ${short(r.size)} ${r.filter}: ${r.check}`);
  for (const r of runRows) console.log(`  ${short(r.size)} ${RUNS_CASE}: ${r.check}`);
  console.log(
    `\nserver peak RSS: ${rssLoad ? `${mib(rssLoad)} while loading, ` : ""}${mib(rssQueries)} while serving the dashboard`,
  );
  console.log(
    "targets: < 100 ms p95 at 10M events, and < 2x the 10k time; the Eval Runs list < 500 ms p95 at 10M",
  );
  for (const e of explains) console.log(`\n${e}`);
}

const duckCsv = (files: readonly string[]) =>
  `read_csv([${files.map(lit).join(", ")}], header = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, columns = {${["usage_event_uuid", ...EVENT_COLUMNS].map((c) => `'${c}': '${duckType(c)}'`).join(", ")}})`;

function duckType(c: string): string {
  if (c === "occurred_at") return "TIMESTAMP";
  if (c === "is_jailbreak" || c === "has_ground_truth") return "BOOLEAN";
  if (c === "quantity" || c === "unit_price_micros" || c === "cost_micros") return "BIGINT";
  return "VARCHAR";
}

/** EXPLAIN ANALYZE of the statements behind the three calls, built with the server's own helpers. */
async function explainQueries(
  client: pg.Client,
  cycle: Cycle,
  workspaceUuids: readonly string[],
  runId: string | null,
) {
  const db = drizzle(client);
  const out: string[] = [];
  const sets = filterSets(workspaceUuids, runId);
  for (const set of only ? sets : sets.filter((x) => !x.f.search)) {
    const matches = await workspaceMatches(db as unknown as Db, cycle.organizationUuid, set.f.search);
    const where = eventWhere(cycle, set.f, matches);
    const statements: [string, { sql: string; params: unknown[] }][] = [
      [
        "records: first page",
        db
          .select(recordColumns)
          .from(usageEvents)
          .leftJoin(workspaces, workspaceJoin)
          .leftJoin(priceRules, priceRuleJoin)
          .where(where)
          .orderBy(...orderFor("date", true))
          .limit(10)
          .toSQL(),
      ],
      [
        "summary/series/records total: the page data's grouping-sets query (daily buckets)",
        rollupSetsQuery(db as unknown as Db, cycle, set.f, "daily").toSQL(),
      ],
    ];
    for (const [label, q] of statements) {
      const res = await client.query(`explain (analyze, buffers) ${q.sql}`, q.params);
      out.push(
        `EXPLAIN ANALYZE ${label}, ${set.name}:\n${res.rows.map((r) => `  ${r["QUERY PLAN"]}`).join("\n")}`,
      );
    }
  }
  return out;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
