// Exports at scale (issue 25, goal 4): the records CSV and the report CSV downloaded over real HTTP
// from a billing cycle of N events, with the server's peak RSS while a client reads them. The
// exports stream from a cursor, so the peak must not grow with N: the goal is the largest size's
// peak within 1.2× of the smallest's.
//
// Usage: [DATABASE_URL=postgres://…] npx tsx bench/exports.ts [sizes=100k,1M] [--port P]
// With DATABASE_URL: PostgreSQL, a scratch database per size created and dropped on that server;
// without it: PGlite, a data directory per size. Each size: the server writes N events into a
// closed January 2024 cycle (one INSERT … SELECT from generate_series), stops, and a fresh server process on the same data answers the downloads, so its
// memory holds nothing of the load. The RSS is sampled every 20 ms in the server process
// (bench/metering-server.ts) from just before a download to its last byte. Downloads are read as
// fast as this process can (the records export is paced by the server to 16 MiB/s).
//   records: GET /v1/usage/export.csv?billing_cycle_uuid=… (N rows)
//   report:  GET /v1/usage/report?…&bucket_width=1h&group_by=workspace,eval_type&format=csv (raw events)

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { gitShort, mib, parseCount, type Server, scratchDatabase, short, startServer } from "./metering-lib";
import { backendLabel, type Figure, startResults } from "./results";

const { values: flags, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { port: { type: "string" } },
});
const sizes = (positionals.length ? positionals.join(",") : "100k,1M").split(",").map(parseCount);
/** --port P: the loading server listens on P, the measured one on P+1 (default: any free port). */
const port = Number(flags.port ?? 0);
const MONTH = "2024-01-01";
const NEXT = "2024-02-01";
const GOAL = 1.2;

type Download = { name: string; rows: number; bytes: number; seconds: number; peak: number; before: number };

/** Reads a download to its end, counting bytes and lines, while the server samples its RSS. */
async function download(server: Server, name: string, path: string): Promise<Download> {
  const before = (await server.rss()).now;
  const t = performance.now();
  const res = await fetch(`${server.base}${path}`, { headers: { "x-api-key": server.info.apiKey } });
  if (res.status !== 200) throw new Error(`${name}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  const seconds = (performance.now() - t) / 1000;
  const { peak } = await server.rss();
  return { name, rows: lines - 1, bytes, seconds, peak, before };
}

/** Writes `size` events into a new closed January 2024 cycle of the organization; its uuid. */
async function load(server: Server, size: number): Promise<string> {
  const { orgId } = server.info;
  const [cycle] = await server.sql<{ id: string }>(
    `insert into billing_cycles (organization_uuid, start_date, end_date) values ('${orgId}', '${MONTH}', '${NEXT}') returning billing_cycle_uuid::text as id`,
  );
  if (!cycle) throw new Error("no cycle");
  const t = performance.now();
  await server.sql(`select usage_events_ensure_month('${MONTH}')`);
  // Written by one INSERT … SELECT (the same on both databases; ingestion of 1M events would
  // take an hour here): spread over the month to the microsecond, as bulk loads write times, over
  // the organization's workspaces (and none), four operations and eval types, three creators.
  const ws = `{${server.info.workspaceUuids.join(",")}}`;
  const [written] = await server.sql<{ n: string }>(
    `with x as (select i, timestamptz '${MONTH} 00:00:00+00' + (i::double precision / ${size} * 2678399) * interval '1 second' as at
                    from generate_series(1, ${size}) as i),
            w as (insert into usage_events (organization_uuid, event_id, occurred_at, workspace_uuid, eval_run_uuid,
                    name, operation, eval_type, modality, created_by, quantity, rule_metric, unit_price_micros, cost_micros)
                  select '${orgId}', 'exports-' || i, at,
                         case when i % 13 = 0 then null else ('${ws}'::uuid[])[1 + i % ${server.info.workspaceUuids.length}] end,
                         'run-' || (i % 997), 'Eval ' || (i % 89),
                         (array['generation','scoring','judging','evaluation'])[1 + i % 4],
                         (array['safety','jailbreak','accuracy','image_safety'])[1 + i % 4], '',
                         (array['admin@acme.test','member@acme.test','newcomer@acme.test'])[1 + i % 3],
                         1 + i % 5, 'eval', 2000, 2000 * (1 + i % 5)
                    from x returning 1)
       select count(*)::text as n from w`,
  );
  if (Number(written?.n) !== size) throw new Error(`wrote ${written?.n} of ${size}`);
  await server.sql("vacuum analyze usage_events");
  console.log(`${short(size).padStart(5)} events loaded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return cycle.id;
}

/** One size: load N events into a fresh database, restart the server on it, download both exports. */
async function measure(size: number, url: string | undefined): Promise<Download[]> {
  const scratch = url ? await scratchDatabase(url, "bench_exports") : null;
  const dataDir = mkdtempSync(join(tmpdir(), "exports-data-"));
  // A kept data directory: the second server opens what the first loaded.
  process.env.BENCH_DATA_DIR = dataDir;
  const opts = scratch ? { databaseUrl: scratch.url } : {};
  const at = (offset: number) => (port ? { port: port + offset } : {});
  try {
    const loader = await startServer({ ...opts, ...at(0) });
    let cycle: string;
    try {
      cycle = await load(loader, size);
    } finally {
      await loader.stop();
    }

    const server = await startServer({ ...opts, ...at(1) });
    try {
      const period = `starting_at=${MONTH}&ending_at=${NEXT}`;
      const results = [
        await download(server, "records", `/v1/usage/export.csv?billing_cycle_uuid=${cycle}`),
        await download(
          server,
          "report",
          `/v1/usage/report?${period}&bucket_width=1h&group_by=workspace,eval_type&format=csv`,
        ),
      ];
      for (const r of results)
        console.log(
          `${short(size).padStart(5)} events  ${r.name.padEnd(8)} ${String(r.rows).padStart(8)} rows ${mib(r.bytes).padStart(8)} ` +
            `in ${r.seconds.toFixed(1).padStart(6)} s  server RSS ${mib(r.before)} before, peak ${mib(r.peak)}`,
        );
      if (results[0]?.rows !== size)
        throw new Error(`the records export has ${results[0]?.rows} of ${size} rows`);
      return results;
    } finally {
      await server.stop();
    }
  } finally {
    delete process.env.BENCH_DATA_DIR;
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const url = process.env.DATABASE_URL;
  const backend = backendLabel();
  const results = startResults("exports", backend, { sizes: sizes.map(short) });
  const runs = new Map<number, Download[]>();
  for (const size of sizes) runs.set(size, await measure(size, url));
  const small = sizes[0] as number;
  const large = sizes[sizes.length - 1] as number;
  const figures: Figure[] = [];
  for (const name of ["records", "report"]) {
    const at = (size: number) => runs.get(size)?.find((r) => r.name === name) as Download;
    figures.push({
      id: `${name}-${short(small)}`,
      label: `${name} CSV peak RSS, ${short(small)} events`,
      value: at(small).peak / 2 ** 20,
      unit: "MiB",
    });
    figures.push({
      id: `${name}-${short(large)}`,
      label: `${name} CSV peak RSS, ${short(large)} events`,
      value: at(large).peak / 2 ** 20,
      unit: "MiB",
      ratio: at(large).peak / at(small).peak,
      baseline: `${short(small)} events`,
      target: { on: "ratio", op: "<=", limit: GOAL },
    });
  }
  console.log(
    `\nexports (${backend}) at ${gitShort()}, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  for (const f of figures)
    console.log(
      `  ${f.label.padEnd(36)} ${f.value.toFixed(0).padStart(6)} ${f.unit}` +
        (f.ratio === undefined
          ? ""
          : `  ${f.ratio.toFixed(2)}× ${f.baseline}  (goal ≤ ${GOAL}×: ${f.ratio <= GOAL ? "met" : "MISSED"})`),
    );
  results.save(
    figures,
    sizes.flatMap((s) =>
      (runs.get(s) ?? []).map(
        (r) =>
          `${short(s)} events, ${r.name}: ${r.rows} rows, ${mib(r.bytes)} in ${r.seconds.toFixed(1)} s, RSS ${mib(r.before)} before`,
      ),
    ),
  );
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
