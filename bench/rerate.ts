// Re-rating an open cycle after a price change (issue 24): the served product (its own process, as
// `npm start` runs it) with the demo organization, whose open cycle holds `--events` usage events
// priced by its "scoring, eval" rule; then `price set` (the operator command, as an operator runs
// it) sets a new price for those dimensions from the open cycle's start, which re-rates every one
// of them. Measured: the re-rating's wall time and events per second, the peak memory (RSS) of the
// server and of the command while it runs, and the API's p95 — the dashboard's usage summary and
// an ingestion call of 10 events — idle before, then during the re-rating (the issue: re-rating
// must not stop ingestion or the dashboard).
//
// On PostgreSQL (--postgres, DATABASE_URL) the events are written by one INSERT … SELECT from
// generate_series (the demo seed's ingestion would take an hour for 1M) and the rollups rebuilt from
// them; on the embedded database, whose one process is the server's, they are ingested through the
// API in batches of 5,000, all into the open cycle (the demo seed would spread them over three). `price set` re-rates in its own process on PostgreSQL, in the
// server (which the command calls) on the embedded database.
//
// Usage: npx tsx bench/rerate.ts [--events 1000000] [--probes 60] [--port 3490]
//        [--postgres]   (DATABASE_URL's server; also when DATABASE_URL is set; else the embedded one)
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { rebuildRollupsSql } from "../server/metering/shared/rollups";
import { type Figure, startResults } from "./results";
import { quantile, serveProduct } from "./served-product";

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    events: { type: "string", default: "1000000" },
    probes: { type: "string", default: "60" },
    port: { type: "string", default: "3490" },
    postgres: { type: "boolean", default: false },
  },
});
const EVENTS = Number(flags.events);
const PROBES = Number(flags.probes);
// DATABASE_URL alone picks PostgreSQL too, as `npm run bench` runs the others on it.
const postgres = flags.postgres === true || Boolean(process.env.DATABASE_URL);
if (postgres && !process.env.DATABASE_URL) throw new Error("--postgres needs DATABASE_URL");

const served = serveProduct({
  port: Number(flags.port),
  // The demo's own usage is small: the bench writes its events into the open cycle itself.
  events: 2_000,
  postgres,
  label: "rerate",
  env: { API_RATE_LIMIT_PER_CREDENTIAL: "0", API_RATE_LIMIT_PER_ORG: "0", INGEST_RATE_LIMIT_PER_KEY: "0" },
});
const API = served.api;
const ENV = {
  ...process.env,
  DATABASE_URL: postgres ? (process.env.DATABASE_URL ?? "") : "",
  DATA_DIR: served.dataDir,
  PUBLIC_URL: API,
  LOG_LEVEL: "warn",
};

/** The resident set (MiB) of a process, from /proc; 0 once it has exited. */
function rssMiB(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Writes `n` events of the open cycle straight into PostgreSQL, keys and rollups with them. */
async function writeEvents(start: string, n: number) {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const org = await client.query<{ id: string }>(
      "select id from identity.organization where slug = 'acme-ai'",
    );
    const orgId = org.rows[0]?.id;
    if (!orgId) throw new Error("no demo organization");
    const rule = await client.query<{ price_rule_uuid: string; unit_price_micros: string }>(
      `select price_rule_uuid, unit_price_micros::text from price_rules where organization_uuid = $1
          and operation = 'scoring' and rule_metric = 'eval' and eval_type is null and modality is null
          and valid_to is null`,
      [orgId],
    );
    const r = rule.rows[0];
    if (!r) throw new Error("the demo's scoring/eval rule is missing");
    const ws = await client.query<{ workspace_uuid: string }>(
      "select workspace_uuid from workspaces where organization_uuid = $1 and deleted_at is null",
      [orgId],
    );
    const wsList = `{${ws.rows.map((w) => w.workspace_uuid).join(",")}}`;
    const span = Date.now() - 3_600_000 - Date.parse(`${start}T00:00:00Z`);
    await client.query("begin");
    // Spread over the open cycle up to an hour ago; one partition per month already exists.
    await client.query(
      `with x as (
         select i, ($2::date + (i::double precision / $3 * $4) * interval '1 millisecond') as at
           from generate_series(1, $3) as i)
       , k as (insert into usage_event_keys (organization_uuid, event_id, occurred_at)
               select $1, 'bench-rerate-' || i, at from x)
       insert into usage_events (organization_uuid, event_id, occurred_at, workspace_uuid, operation,
         eval_type, modality, quantity, rule_metric, unit_price_micros, cost_micros, price_rule_uuid)
       select $1, 'bench-rerate-' || i, at, ($5::uuid[])[1 + i % array_length($5::uuid[], 1)], 'scoring',
              (array['safety','jailbreak','accuracy'])[1 + i % 3], '', 1 + i % 5, 'eval', $6::bigint,
              $6::bigint * (1 + i % 5), $7::uuid
         from x`,
      [orgId, start, n, span, wsList, r.unit_price_micros, r.price_rule_uuid],
    );
    // The rollups from the events, whole: the organization's rows rebuilt.
    for (const t of ["usage_daily", "usage_daily_mid", "usage_daily_coarse", "usage_run_daily"])
      await client.query(`delete from ${t} where organization_uuid = $1`, [orgId]);
    for (const s of rebuildRollupsSql(orgId, "2000-01-01", "2100-01-01")) await client.query(s);
    await client.query("commit");
    // Statistics, as autovacuum keeps them for usage that arrived over days: without them the
    // planner takes the million fresh rows for a few hundred.
    await client.query(
      "analyze usage_events, usage_event_keys, usage_daily, usage_daily_mid, usage_daily_coarse",
    );
  } finally {
    await client.end();
  }
}

/** Ingests `n` events of the open cycle through the API (the embedded database: the server's own). */
async function ingestEvents(key: string, start: string, n: number) {
  const from = Date.parse(`${start}T00:00:00Z`);
  const span = Date.now() - 3_600_000 - from;
  for (let i = 0; i < n; i += 5_000) {
    const events = Array.from({ length: Math.min(5_000, n - i) }, (_, k) => {
      const j = i + k;
      return {
        event_id: `bench-rerate-${j}`,
        occurred_at: new Date(from + Math.floor((j / n) * span)).toISOString(),
        operation: "scoring",
        eval_type: ["safety", "jailbreak", "accuracy"][j % 3],
        quantity: 1 + (j % 5),
      };
    });
    const res = await fetch(`${API}/v1/usage/events`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ events }),
    });
    if (!res.ok) throw new Error(`ingest ${i}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer().catch(() => undefined);
  }
}

/** The last figures of the synchronous, row-by-row re-rating (bench/README.md, Nov 27). */
const BEFORE: Record<string, { what: string; seconds: number; rate: number | null; load: string }> = {
  postgresql: { what: "1,000,000 events", seconds: 292.8, rate: 3_420, load: "17.6 → 14.3" },
  // The demo's 30k events, about a third in the open cycle; the count re-rated was not kept.
  pglite: { what: "the 30k-event demo", seconds: 16.2, rate: null, load: "12.0" },
};

async function main() {
  const backend = postgres ? "postgresql" : "pglite";
  const results = startResults("rerate", backend, { events: EVENTS, probes: PROBES });
  await served.started();
  const admin = await served.accessToken("admin@acme.test");
  const bearer = { authorization: `Bearer ${admin}` };
  const cycles = (await (
    await fetch(`${API}/v1/accounts/organization/billingcycles`, { headers: bearer })
  ).json()) as {
    billing_cycle_start_date: string;
    billing_cycle_end_date: string | null;
  }[];
  const open = cycles.find((c) => c.billing_cycle_end_date === null);
  if (!open) throw new Error(`no open cycle: ${JSON.stringify(cycles).slice(0, 300)}`);
  const key = served.ingestKey("acme-ai", "rerate bench");
  const t = performance.now();
  if (postgres) await writeEvents(open.billing_cycle_start_date, EVENTS);
  else await ingestEvents(key, open.billing_cycle_start_date, EVENTS);
  console.log(
    `wrote ${EVENTS} events into the open cycle in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  let sent = 0;
  const ingest = async () => {
    const t = performance.now();
    const events = Array.from({ length: 10 }, () => ({
      event_id: `bench-live-${++sent}`,
      occurred_at: new Date(Date.now() - 60_000).toISOString(),
      operation: "scoring",
      eval_type: "safety",
    }));
    const res = await fetch(`${API}/v1/usage/events`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ events }),
    });
    await res.arrayBuffer();
    if (res.status >= 500 || res.status === 429) throw new Error(`ingest: ${res.status}`);
    return performance.now() - t;
  };
  const summary = async () => {
    const t = performance.now();
    const res = await fetch(`${API}/v1/usage/summary`, { headers: bearer });
    await res.arrayBuffer();
    if (res.status >= 500) throw new Error(`summary: ${res.status}`);
    return performance.now() - t;
  };
  const sample = async (n: number, running?: () => boolean) => {
    const s: number[] = [];
    const i: number[] = [];
    for (let k = 0; k < n && (running?.() ?? true); k++) {
      s.push(await summary());
      i.push(await ingest());
      await new Promise((r) => setTimeout(r, 20));
    }
    return { summary: s, ingest: i };
  };
  await sample(5); // warm-up
  const idle = await sample(PROBES);
  const serverPidNow = served.pid;
  const rssIdle = rssMiB(serverPidNow);

  // The price change: scoring/eval from the open cycle's start, a little dearer.
  const started = performance.now();
  const cmd = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "server/main.ts",
      "price",
      "set",
      "--org",
      "acme-ai",
      "--operation",
      "scoring",
      "--rule-metric",
      "eval",
      "--unit-price",
      "0.021",
      "--valid-from",
      `${open.billing_cycle_start_date}T00:00:00Z`,
    ],
    { env: ENV, stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  cmd.stdout.on("data", (d) => (out += d));
  let running = true;
  const exited = new Promise<number>((r) => cmd.on("exit", (code) => r(code ?? 1))).then((code) => {
    running = false;
    return code;
  });
  let peakServer = rssIdle;
  let peakCommand = 0;
  const sampler = setInterval(() => {
    peakServer = Math.max(peakServer, rssMiB(serverPidNow));
    peakCommand = Math.max(peakCommand, rssMiB(cmd.pid));
  }, 200);
  const during = { summary: [] as number[], ingest: [] as number[] };
  while (running) {
    const s = await sample(10, () => running);
    during.summary.push(...s.summary);
    during.ingest.push(...s.ingest);
  }
  const code = await exited;
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (code !== 0) throw new Error(`price set failed (${code}):\n${out}`);
  const rerated = Number(/Re-rated ([\d,]+) event/.exec(out)?.[1]?.replace(/,/g, "") ?? 0);
  console.log(out.trim());

  const p95 = (xs: number[]) => quantile(xs, 0.95);
  const figures: Figure[] = [
    { id: "events", label: "open-cycle events re-rated", value: rerated, unit: "events" },
    { id: "seconds", label: "re-rating wall time (price set)", value: seconds, unit: "s" },
    { id: "rate", label: "re-rating rate", value: rerated / seconds, unit: "events/s" },
    {
      id: "rss-server",
      label: "server peak RSS during re-rating",
      value: peakServer,
      unit: "MiB",
      ratio: peakServer / rssIdle,
      baseline: "server RSS idle",
    },
    { id: "rss-command", label: "price set peak RSS", value: peakCommand, unit: "MiB" },
    { id: "summary-idle", label: "GET /v1/usage/summary, idle p95", value: p95(idle.summary), unit: "ms" },
    {
      id: "summary-during",
      label: "GET /v1/usage/summary, during p95",
      value: p95(during.summary),
      unit: "ms",
      ratio: p95(during.summary) / p95(idle.summary),
      baseline: "idle",
    },
    { id: "ingest-idle", label: "POST /v1/usage/events (10), idle p95", value: p95(idle.ingest), unit: "ms" },
    {
      id: "ingest-during",
      label: "POST /v1/usage/events (10), during p95",
      value: p95(during.ingest),
      unit: "ms",
      ratio: p95(during.ingest) / p95(idle.ingest),
      baseline: "idle",
    },
  ];
  const calls = `${during.summary.length} summary and ${during.ingest.length} ingestion calls during the re-rating, none refused or failed`;
  // The figures before re-rating was a set-based job (bench/README.md, Nov 27), beside these.
  const before = BEFORE[backend];
  const rate = rerated / seconds;
  if (before)
    console.log(
      `\nbefore (row by row, inside the request; ${before.what}): ${before.seconds} s` +
        `${before.rate ? `, ${before.rate.toLocaleString("en-US")} events/s` : ""}, load ${before.load}` +
        `\nnow (a set-based job; ${EVENTS.toLocaleString("en-US")} events): ${seconds.toFixed(1)} s, ` +
        `${Math.round(rate).toLocaleString("en-US")} events/s` +
        `${before.rate ? ` (${(rate / before.rate).toFixed(1)}× the rate)` : ""}, load ${loadavg()
          .map((x) => x.toFixed(2))
          .join(" ")}`,
    );
  for (const f of figures)
    console.log(
      `  ${f.label.padEnd(44)} ${f.value.toFixed(1).padStart(10)} ${f.unit}${f.ratio !== undefined ? `  ${f.ratio.toFixed(2)}× ${f.baseline}` : ""}`,
    );
  results.save(figures, [calls]);
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(served.stop);
