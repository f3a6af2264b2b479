// Usage ingestion throughput: POST /v1/usage/events over real HTTP (JSON batches of 1,000 events
// from a few concurrent senders, an ingestion key) against a plain COPY of the same rows
// into the same tables of the same database. The server runs in its own process (its peak RSS is
// reported); the events come from the deterministic generator and are serialized before the clock
// starts, so both figures measure the database side plus, for HTTP, the product's own work.
//
// Usage: [DATABASE_URL=postgres://…] npx tsx bench/ingest.ts [events=20k] [--senders 4]
//          [--batch 1000] [--rounds 2] [--seed 7] [--only pglite|postgres] [--profile]
//          [--baseline <checkout>]
// With DATABASE_URL both PostgreSQL (in a scratch database created and dropped on that server)
// and PGlite are measured; without it, PGlite only. --profile takes a CPU profile of the server
// during the last HTTP phase and prints where its time went. --baseline <dir> also runs the server
// of another checkout of this repository (e.g. a git worktree of an earlier commit) on its own
// database, round by round alternately with this one, so before and after share the machine's load.
// Figures and ratios are saved to bench/results/ingest.<backend>.json (bench/results.ts).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import type { UsageEventInput } from "../server/metering/ingestion/events";
import { generateUsageEvents } from "../server/metering/ingestion/generate";
import {
  copyFromStdin,
  csvLine,
  EVENT_COLUMNS,
  machine,
  mib,
  parseCount,
  prepareBulkLoad,
  rollupInsertSelect,
  type Server,
  scratchDatabase,
  short,
  startServer,
} from "./metering-lib";
import { type Profile, summarizeProfile } from "./metering-profile";
import { type Figure, startResults } from "./results";

const { values: flags, positionals: positional } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: {
    events: { type: "string" },
    senders: { type: "string" },
    batch: { type: "string" },
    rounds: { type: "string" },
    seed: { type: "string" },
    only: { type: "string" },
    profile: { type: "boolean" },
    baseline: { type: "string" },
  },
});
const total = parseCount(positional[0] ?? flags.events ?? "20k");
const senders = Number(flags.senders ?? 4);
const batchSize = Number(flags.batch ?? 1000);
const rounds = Number(flags.rounds ?? 2);
const seed = Number(flags.seed ?? 7);
const only = flags.only;
const profile = flags.profile === true;
const baselineRoot = flags.baseline ? resolve(flags.baseline) : undefined;

type Figures = {
  label: string;
  http: number[];
  copy: number[];
  copyRollup: number[];
  rollupOnly: number[];
  rssHttp: number;
  rssCopy: number;
  rssIdle: number;
  checks: string[];
  profile?: string;
};

/** An ingestion key sends usage, not price adjustments (operators' credits): those are left out. */
const withoutAdjustment = ({ cost: _cost, notes: _notes, ...event }: UsageEventInput) => event;
const eps = (events: number, ms: number) => (events / ms) * 1000;
const best = (xs: number[]) => Math.max(...xs);

async function sendAll(server: Server, bodies: readonly string[]): Promise<number> {
  let next = 0;
  let accepted = 0;
  const url = `${server.base}/v1/usage/events`;
  const headers = { "content-type": "application/json", "x-api-key": server.info.ingestKey };
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const res = await fetch(url, { method: "POST", headers, body });
      const json = (await res.json()) as { accepted: number; rejected: unknown[] };
      if (res.status !== 200 || json.rejected.length)
        throw new Error(`ingest answered ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
      accepted += json.accepted;
    }
  };
  await Promise.all(Array.from({ length: senders }, worker));
  return accepted;
}

// A fixed past window: the generator's output (and so every figure's data) is the same on every run.
const FROM = new Date("2025-03-01T00:00:00Z");
const TO = new Date("2025-03-26T00:00:00Z");

/** One server under test (this checkout, or the baseline's) with its own database. */
type Subject = {
  figures: Figures;
  server: Server;
  pgClient: pg.Client | null;
  dir: string;
  drop?: () => Promise<void>;
};

async function startSubject(
  label: string,
  databaseUrl: string | undefined,
  root: string | undefined,
): Promise<Subject> {
  const server = await startServer({ databaseUrl, root });
  const pgClient = databaseUrl ? new pg.Client({ connectionString: databaseUrl }) : null;
  await pgClient?.connect();
  const { workspaceUuids, createdBy } = server.info;
  // Warm-up (JIT, pools, the API key cache), not measured.
  const warm = [
    ...generateUsageEvents({
      seed: seed + 1,
      count: 2000,
      from: FROM,
      to: TO,
      workspaceUuids,
      createdBy,
      idPrefix: "warm",
    }),
  ].map(withoutAdjustment);
  await sendAll(server, [
    JSON.stringify({ events: warm.slice(0, 1000) }),
    JSON.stringify({ events: warm.slice(1000) }),
  ]);
  const figures: Figures = {
    label,
    http: [],
    copy: [],
    copyRollup: [],
    rollupOnly: [],
    rssHttp: 0,
    rssCopy: 0,
    rssIdle: (await server.rss()).now,
    checks: [],
  };
  return { figures, server, pgClient, dir: mkdtempSync(join(tmpdir(), "ingest-copy-")) };
}

async function stopSubject(s: Subject) {
  await s.pgClient?.end();
  await s.server.stop();
  rmSync(s.dir, { recursive: true, force: true });
  await s.drop?.();
}

/** One round on one subject: the events over HTTP, then the same rows by COPY (and the rollup). */
async function measureRound(s: Subject, round: number, profiling: boolean) {
  const { server, figures, pgClient } = s;
  const { orgId, workspaceUuids, createdBy } = server.info;
  const rules = await server.prices();
  const now = new Date();
  const events = [
    ...generateUsageEvents({
      seed: seed + round * 1000,
      count: total,
      from: FROM,
      to: TO,
      workspaceUuids,
      createdBy,
      idPrefix: `r${round}`,
    }),
  ].map(withoutAdjustment);
  const bodies: string[] = [];
  for (let i = 0; i < events.length; i += batchSize)
    bodies.push(JSON.stringify({ events: events.slice(i, i + batchSize) }));
  // The same rows, validated and priced as ingestion does, as CSV (1,000 rows per chunk).
  const chunks: Buffer[] = [];
  for (let i = 0; i < events.length; i += 1000)
    chunks.push(
      Buffer.from(
        events
          .slice(i, i + 1000)
          .map((e) => csvLine(orgId, rules, e, now))
          .join(""),
      ),
    );
  const files: string[] = [];
  if (!pgClient) {
    const file = join(s.dir, `round${round}.csv`);
    writeFileSync(file, Buffer.concat(chunks));
    files.push(file);
  }
  // What this server's schema has: the tables ingestion writes, and whether usage_events is
  // partitioned by month (then COPY needs the month's partition, as ingestion creates it).
  const load = await prepareBulkLoad(server.sql, FROM, TO);
  const truncate = () => server.sql(`truncate ${load.tables.join(", ")}`);
  const totals = () =>
    server.sql<{ n: string; c: string; d: string }>(
      "select (select count(*) from usage_events)::text as n, (select coalesce(sum(cost_micros_sum),0) from usage_daily)::text as c, (select count(*) from usage_daily)::text as d",
    );

  // 1. HTTP
  await truncate();
  await server.sql("checkpoint");
  await server.rss();
  if (profiling) await server.profileStart();
  let t = performance.now();
  const accepted = await sendAll(server, bodies);
  const httpMs = performance.now() - t;
  if (profiling) figures.profile = summarizeProfile((await server.profileStop()) as Profile);
  figures.rssHttp = Math.max(figures.rssHttp, (await server.rss()).peak);
  if (accepted !== total) throw new Error(`accepted ${accepted} of ${total}`);
  figures.http.push(eps(total, httpMs));
  const afterHttp = (await totals())[0]!;

  // 2. COPY into the same table, then the rollup as one insert-select
  await truncate();
  await load.ensurePartitions();
  await server.sql("checkpoint");
  await server.rss();
  const copyText = `copy usage_events (${EVENT_COLUMNS.join(", ")}) from stdin with (format csv)`;
  t = performance.now();
  const copied = pgClient
    ? await copyFromStdin(pgClient, copyText, chunks)
    : await server.copyFiles("usage_events", EVENT_COLUMNS, files);
  const copyMs = performance.now() - t;
  t = performance.now();
  await server.sql(rollupInsertSelect(orgId));
  const rollupMs = performance.now() - t;
  figures.rssCopy = Math.max(figures.rssCopy, (await server.rss()).peak);
  if (copied !== total) throw new Error(`copied ${copied} of ${total}`);
  figures.copy.push(eps(total, copyMs));
  figures.copyRollup.push(eps(total, copyMs + rollupMs));
  figures.rollupOnly.push(eps(total, rollupMs));
  const afterCopy = (await totals())[0]!;
  figures.checks.push(
    afterHttp.n === afterCopy.n && afterHttp.c === afterCopy.c && afterHttp.d === afterCopy.d
      ? `round ${round + 1}: HTTP and COPY+rollup hold the same ${afterHttp.n} events, ${afterHttp.d} daily rows, cost ${afterHttp.c} µ$`
      : `round ${round + 1}: MISMATCH http=${JSON.stringify(afterHttp)} copy=${JSON.stringify(afterCopy)}`,
  );
}

/** This checkout (and the baseline's, when given) on one backend, rounds alternating between them. */
async function run(adminUrl?: string): Promise<{ figures: Figures[]; version?: string }> {
  const subjects: Subject[] = [];
  let version: string | undefined;
  const open = async (label: string, root: string | undefined) => {
    const scratch = adminUrl ? await scratchDatabase(adminUrl, "bench_ingest") : undefined;
    version = scratch?.version;
    try {
      const s = await startSubject(label, scratch?.url, root);
      s.drop = scratch?.drop;
      subjects.push(s);
    } catch (err) {
      await scratch?.drop();
      throw err;
    }
  };
  try {
    if (baselineRoot) await open("baseline", baselineRoot);
    await open("this checkout", undefined);
    for (let round = 0; round < rounds; round++)
      for (const s of subjects) await measureRound(s, round, profile && round === rounds - 1);
  } finally {
    for (const s of subjects) await stopSubject(s);
  }
  return { figures: subjects.map((s) => s.figures), version };
}

function report(backend: string, figures: Figures[]) {
  console.log(
    `\n${backend}`.padEnd(16),
    "HTTP ev/s".padStart(11),
    "COPY ev/s".padStart(11),
    "HTTP/COPY".padStart(10),
    "COPY+rollup".padStart(12),
    "HTTP/(C+R)".padStart(11),
    "  server peak RSS (idle / HTTP / COPY)",
  );
  for (const r of figures) {
    const h = best(r.http);
    const c = best(r.copy);
    const cr = best(r.copyRollup);
    console.log(
      `  ${r.label}`.padEnd(15),
      h.toFixed(0).padStart(11),
      c.toFixed(0).padStart(11),
      `${(h / c).toFixed(2)}x`.padStart(10),
      cr.toFixed(0).padStart(12),
      `${(h / cr).toFixed(2)}x`.padStart(11),
      `  ${mib(r.rssIdle)} / ${mib(r.rssHttp)} / ${mib(r.rssCopy)}`,
    );
  }
  console.log("  all rounds (events/s):");
  for (const r of figures)
    console.log(
      `    ${r.label}: HTTP ${r.http.map((x) => x.toFixed(0)).join(", ")}; COPY ${r.copy.map((x) => x.toFixed(0)).join(", ")}; rollup insert-select alone ${r.rollupOnly.map((x) => x.toFixed(0)).join(", ")}`,
    );
  for (const r of figures) for (const c of r.checks) console.log(`    ${r.label} check, ${c}`);
}

/** The saved figures: this checkout's rates and ratios (and the baseline's, when measured). */
function figuresOf(figures: Figures[]): Figure[] {
  const out: Figure[] = [];
  for (const r of figures) {
    const before = r.label === "baseline";
    const id = (name: string) => (before ? `${name}-before` : name);
    const suffix = before ? " (baseline)" : "";
    const h = best(r.http);
    out.push(
      {
        id: id("http"),
        label: `HTTP ingestion${suffix}`,
        value: Math.round(h),
        unit: "events/s",
        ratio: h / best(r.copy),
        baseline: "COPY of the same rows",
        ...(before ? {} : { target: { on: "ratio", op: ">=", limit: 0.5 } as const }),
      },
      { id: id("copy"), label: `COPY${suffix}`, value: Math.round(best(r.copy)), unit: "events/s" },
      {
        id: id("http-vs-copy-rollup"),
        label: `HTTP vs COPY + rollup${suffix}`,
        value: Math.round(h),
        unit: "events/s",
        ratio: h / best(r.copyRollup),
        baseline: "COPY + rollup insert-select",
      },
    );
  }
  return out;
}

async function main() {
  const url = process.env.DATABASE_URL;
  const measured: { label: string; figures: Figures[]; version?: string }[] = [];
  const params = { events: total, senders, batch: batchSize, rounds, seed, baseline: baselineRoot ?? null };
  const notes = (figures: Figures[]) => figures.flatMap((f) => f.checks.map((c) => `${f.label}: ${c}`));
  if (url && only !== "pglite") {
    const results = startResults("ingest", "postgresql", params);
    const { figures, version } = await run(url);
    results.save(figuresOf(figures), notes(figures));
    measured.push({ label: version ?? "PostgreSQL", figures, version });
  }
  if (only !== "postgres") {
    const results = startResults("ingest", "pglite", params);
    const { figures } = await run();
    results.save(figuresOf(figures), notes(figures));
    measured.push({ label: "PGlite", figures });
  }

  console.log(`\nUsage ingestion, ${short(total)} events per round, ${rounds} round(s), best round shown`);
  console.log(
    `HTTP: POST /v1/usage/events, ${batchSize}-event JSON batches, ${senders} concurrent senders, ingestion key`,
  );
  console.log(
    "COPY: COPY usage_events FROM STDIN (PostgreSQL) / FROM '/dev/blob' (PGlite), same priced rows, same table",
  );
  if (baselineRoot) console.log(`baseline: the server of ${baselineRoot}, rounds alternating with this one`);
  console.log(`machine: ${machine(measured.find((m) => m.version)?.version)}`);
  for (const m of measured) report(m.label, m.figures);
  console.log("\ntargets: ≥ 0.5x COPY over HTTP on PostgreSQL");
  for (const m of measured)
    for (const f of m.figures)
      if (f.profile) console.log(`\n${m.label} ${f.label}: server CPU profile (HTTP phase):\n${f.profile}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
