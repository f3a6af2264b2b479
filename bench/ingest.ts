// Usage ingestion throughput: POST /v1/usage/events over real HTTP (JSON batches of 1,000 events
// from a few concurrent senders, an ingestion key) against a plain COPY of the same rows
// into the same tables of the same database. The server runs in its own process (its peak RSS is
// reported); the events come from the deterministic generator and are serialized before the clock
// starts, so both figures measure the database side plus, for HTTP, the product's own work.
//
// Usage: [DATABASE_URL=postgres://…] npx tsx bench/ingest.ts [events=20k] [--senders 4]
//          [--batch 1000] [--rounds 2] [--seed 7] [--only pglite|postgres] [--profile]
// With DATABASE_URL both PostgreSQL (in a scratch database created and dropped on that server)
// and PGlite are measured; without it, PGlite only. --profile takes a CPU profile of the server
// during the last HTTP phase (COPY skipped) and prints where its time went.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import type { UsageEventInput } from "../server/metering/events";
import { generateUsageEvents } from "../server/metering/generate";
import {
  copyFromStdin,
  csvLine,
  EVENT_COLUMNS,
  machine,
  mib,
  parseCount,
  rollupInsertSelect,
  type Server,
  scratchDatabase,
  short,
  startServer,
} from "./metering-lib";
import { type Profile, summarizeProfile } from "./metering-profile";

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
  },
});
const total = parseCount(positional[0] ?? flags.events ?? "20k");
const senders = Number(flags.senders ?? 4);
const batchSize = Number(flags.batch ?? 1000);
const rounds = Number(flags.rounds ?? 2);
const seed = Number(flags.seed ?? 7);
const only = flags.only;
const profile = flags.profile === true;

type Figures = {
  backend: string;
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

async function run(backend: "pglite" | "postgres", databaseUrl?: string): Promise<Figures> {
  const server = await startServer({
    databaseUrl,
  });
  const { orgId, workspaceUuids, createdBy } = server.info;
  const rules = await server.prices();
  const now = new Date();
  // A fixed past window: the generator's output (and so every figure's data) is the same on every run.
  const from = new Date("2025-03-01T00:00:00Z");
  const to = new Date("2025-03-26T00:00:00Z");
  const figures: Figures = {
    backend: backend === "pglite" ? "PGlite" : "PostgreSQL",
    http: [],
    copy: [],
    copyRollup: [],
    rollupOnly: [],
    rssHttp: 0,
    rssCopy: 0,
    rssIdle: 0,
    checks: [],
  };
  const pgClient = databaseUrl ? new pg.Client({ connectionString: databaseUrl }) : null;
  await pgClient?.connect();
  const dir = mkdtempSync(join(tmpdir(), "ingest-copy-"));
  try {
    // Warm-up (JIT, pools, the API key cache), not measured.
    const warm = [
      ...generateUsageEvents({
        seed: seed + 1,
        count: 2000,
        from,
        to,
        workspaceUuids,
        createdBy,
        idPrefix: "warm",
      }),
    ].map(withoutAdjustment);
    await sendAll(server, [
      JSON.stringify({ events: warm.slice(0, 1000) }),
      JSON.stringify({ events: warm.slice(1000) }),
    ]);
    figures.rssIdle = (await server.rss()).now;

    for (let round = 0; round < rounds; round++) {
      const events = [
        ...generateUsageEvents({
          seed: seed + round * 1000,
          count: total,
          from,
          to,
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
      if (backend === "pglite") {
        const file = join(dir, `round${round}.csv`);
        writeFileSync(file, Buffer.concat(chunks));
        files.push(file);
      }
      const truncate = () => server.sql("truncate usage_events, usage_daily");
      const totals = () =>
        server.sql<{ n: string; c: string; d: string }>(
          "select (select count(*) from usage_events)::text as n, (select coalesce(sum(cost_micros_sum),0) from usage_daily)::text as c, (select count(*) from usage_daily)::text as d",
        );

      // 1. HTTP
      await truncate();
      await server.sql("checkpoint");
      await server.rss();
      const profiling = profile && round === rounds - 1;
      if (profiling) await server.profileStart();
      let t = performance.now();
      const accepted = await sendAll(server, bodies);
      const httpMs = performance.now() - t;
      if (profiling) figures.profile = summarizeProfile((await server.profileStop()) as Profile);
      figures.rssHttp = Math.max(figures.rssHttp, (await server.rss()).peak);
      if (accepted !== total) throw new Error(`accepted ${accepted} of ${total}`);
      figures.http.push(eps(total, httpMs));
      const afterHttp = (await totals())[0]!;

      // 2. COPY, then the rollup as one insert-select (skipped when profiling the HTTP path)
      if (profile) continue;
      await truncate();
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
  } finally {
    await pgClient?.end();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

async function main() {
  const url = process.env.DATABASE_URL;
  const results: Figures[] = [];
  let pgVersion: string | undefined;
  if (url && only !== "pglite") {
    const scratch = await scratchDatabase(url, "bench_ingest");
    pgVersion = scratch.version;
    try {
      results.push(await run("postgres", scratch.url));
    } finally {
      await scratch.drop();
    }
  }
  if (only !== "postgres") results.push(await run("pglite"));

  console.log(`\nUsage ingestion, ${short(total)} events per round, ${rounds} round(s), best round shown`);
  console.log(
    `HTTP: POST /v1/usage/events, ${batchSize}-event JSON batches, ${senders} concurrent senders, ingestion key`,
  );
  console.log(
    "COPY: COPY usage_events FROM STDIN (PostgreSQL) / FROM '/dev/blob' (PGlite), same priced rows",
  );
  console.log(`machine: ${machine(pgVersion)}\n`);
  console.log(
    "backend".padEnd(12),
    "HTTP ev/s".padStart(11),
    "COPY ev/s".padStart(11),
    "HTTP/COPY".padStart(10),
    "COPY+rollup".padStart(12),
    "HTTP/(C+R)".padStart(11),
    "  server peak RSS (idle / HTTP / COPY)",
  );
  for (const r of results) {
    const h = best(r.http);
    const c = best(r.copy);
    const cr = best(r.copyRollup);
    console.log(
      r.backend.padEnd(12),
      h.toFixed(0).padStart(11),
      c.toFixed(0).padStart(11),
      `${(h / c).toFixed(2)}x`.padStart(10),
      cr.toFixed(0).padStart(12),
      `${(h / cr).toFixed(2)}x`.padStart(11),
      `  ${mib(r.rssIdle)} / ${mib(r.rssHttp)} / ${mib(r.rssCopy)}`,
    );
  }
  console.log("\nall rounds (events/s):");
  for (const r of results)
    console.log(
      `  ${r.backend}: HTTP ${r.http.map((x) => x.toFixed(0)).join(", ")}; COPY ${r.copy.map((x) => x.toFixed(0)).join(", ")}; rollup insert-select alone ${r.rollupOnly.map((x) => x.toFixed(0)).join(", ")}`,
    );
  for (const r of results) for (const c of r.checks) console.log(`  ${r.backend} check, ${c}`);
  console.log("targets: ≥ 100,000 events/s over HTTP and ≥ 0.5x COPY");
  for (const r of results)
    if (r.profile) console.log(`\n${r.backend} server CPU profile (HTTP phase):\n${r.profile}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
