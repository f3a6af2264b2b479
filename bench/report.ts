// The usage & cost report (GET /v1/usage/report) at scale, over real HTTP: one month of usage per
// size, read as a daily report per workspace and eval type (from the daily rollup), an hourly
// report per workspace (from the month's raw events), and the daily report as CSV.
//
// Usage: [DATABASE_URL=postgres://…] npx tsx bench/report.ts [sizes=10k,100k] [--reps 20] [--seed 5]
// With DATABASE_URL: PostgreSQL, in a scratch database created and dropped on that server; without
// it: PGlite. Data is loaded in bulk as bench/dashboard.ts does: generated events validated and
// priced as ingestion does, COPYed into usage_events, both rollups rebuilt with insert-selects.
// Each case runs twice for warm-up, then `reps` measured times; p50 and p95 are printed. --explain
// (PostgreSQL) prints EXPLAIN ANALYZE of each case's statement at every size.

import { once } from "node:events";
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { parseInstant } from "../contract/usage-report";
import { generateUsageEvents } from "../server/metering/ingestion/generate";
import { rebuildRollupsSql } from "../server/metering/shared/rollups";
import { NO_FILTERS } from "../server/metering/usage/filters";
import { reportRowsStatement } from "../server/metering/usage/report-sql";
import type { Db } from "../server/platform/database";
import {
  copyFromStdin,
  csvLine,
  EVENT_COLUMNS,
  parseCount,
  rowUuid,
  scratchDatabase,
  short,
  startServer,
  summarize,
} from "./metering-lib";

const { values: flags, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { reps: { type: "string" }, seed: { type: "string" }, explain: { type: "boolean" } },
});
const sizes = (positionals.length ? positionals.join(",") : "10k,100k").split(",").map(parseCount);
const reps = Number(flags.reps ?? 20);
const seed = Number(flags.seed ?? 5);
const explain = flags.explain === true;

/** The first day of the month after `day` (YYYY-MM-DD). */
const monthAfter = (day: string) => {
  const d = new Date(`${day}T00:00:00Z`);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
};

async function main() {
  const url = process.env.DATABASE_URL;
  const scratch = url ? await scratchDatabase(url, "bench_report") : null;
  const server = await startServer({ ...(scratch ? { databaseUrl: scratch.url } : {}) });
  const client = scratch ? new pg.Client({ connectionString: scratch.url }) : null;
  await client?.connect();
  const dir = mkdtempSync(join(tmpdir(), "report-csv-"));
  const lines: string[] = [];
  try {
    const { orgId } = server.info;
    const rules = await server.prices();
    // One month per size, from January 2024 on (before the demo's usage).
    let month = "2024-01-01";
    let uuidBase = 0;
    for (const size of sizes) {
      const end = monthAfter(month);
      const file = join(dir, `events-${month}.csv`);
      const out = createWriteStream(file);
      let i = 0;
      for (const e of generateUsageEvents({
        seed: seed + size,
        count: size,
        from: new Date(`${month}T00:00:00Z`),
        to: new Date(`${end}T00:00:00Z`),
        workspaceUuids: server.info.workspaceUuids,
        createdBy: server.info.createdBy,
        idPrefix: `report-${month}`,
      }))
        if (!out.write(csvLine(orgId, rules, e, new Date(), rowUuid(uuidBase + i++))))
          await once(out, "drain");
      out.end();
      await once(out, "finish");
      uuidBase += size;
      const t = performance.now();
      await server.sql(`select usage_events_ensure_month('${month}')`);
      const columns = ["usage_event_uuid", ...EVENT_COLUMNS];
      const copied = client
        ? await copyFromStdin(
            client,
            `copy usage_events (${columns.join(", ")}) from stdin with (format csv)`,
            createReadStream(file, { highWaterMark: 1 << 20 }),
          )
        : await server.copyFiles("usage_events", columns, [file]);
      if (copied !== size) throw new Error(`copied ${copied} of ${size}`);
      await server.sql(`begin; ${rebuildRollupsSql(orgId, month, end).join(";\n")}; commit`);
      for (const table of ["usage_events", "usage_daily", "usage_daily_coarse"])
        await server.sql(`vacuum analyze ${table}`);
      rmSync(file, { force: true });
      console.log(
        `loaded ${short(size)} events for ${month} in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );

      const period = `starting_at=${month}&ending_at=${end}`;
      const cases = [
        [
          "1d × workspace, eval_type (rollup), JSON",
          `${period}&bucket_width=1d&group_by=workspace,eval_type&page_size=1000`,
          "application/json",
        ],
        [
          "1d × workspace, eval_type (rollup), 100 rows",
          `${period}&bucket_width=1d&group_by=workspace,eval_type&page_size=100`,
          "application/json",
        ],
        [
          "1h × workspace (raw events), JSON",
          `${period}&bucket_width=1h&group_by=workspace&page_size=1000`,
          "application/json",
        ],
        [
          "1d × workspace, eval_type (rollup), CSV",
          `${period}&bucket_width=1d&group_by=workspace,eval_type`,
          "text/csv",
        ],
      ] as const;
      for (const [name, query, accept] of cases) {
        const once = async () => {
          const t0 = performance.now();
          const res = await fetch(`${server.base}/v1/usage/report?${query}`, {
            headers: { "x-api-key": server.info.apiKey, accept },
          });
          const body = await res.text();
          if (res.status !== 200) throw new Error(`${name}: ${res.status} ${body.slice(0, 300)}`);
          const rows =
            accept === "text/csv" ? body.trim().split("\n").length - 1 : JSON.parse(body).total_rows;
          return { ms: performance.now() - t0, rows: Number(rows) };
        };
        await once();
        await once();
        const runs = [];
        for (let k = 0; k < reps; k++) runs.push(await once());
        const s = summarize(runs.map((r) => r.ms));
        const line = `${short(size).padStart(5)} events  ${name.padEnd(42)} ${String(runs[0]?.rows).padStart(6)} rows  p50 ${s.p50.toFixed(1).padStart(7)} ms  p95 ${s.p95.toFixed(1).padStart(7)} ms  (n=${s.n})`;
        lines.push(line);
        console.log(line);
        if (explain && client) {
          // The statement the route runs for this case's first page (the CSV reads every row).
          const params = new URLSearchParams(query);
          const groupBy = (params.get("group_by") ?? "").split(",").filter(Boolean);
          const built = reportRowsStatement(
            drizzle(client) as unknown as Db,
            {
              organizationUuid: orgId,
              start: parseInstant(month) as Date,
              end: parseInstant(end) as Date,
              width: params.get("bucket_width") as "1h" | "1d",
              groupBy: groupBy as ("workspace" | "eval_type")[],
              filters: NO_FILTERS,
              matches: null,
            },
            accept === "text/csv" ? {} : { limit: Number(params.get("page_size")) + 1 },
          );
          const res = await client.query(`explain (analyze, buffers) ${built.sql}`, built.params);
          console.log(res.rows.map((r) => `    ${r["QUERY PLAN"]}`).join("\n"));
        }
      }
      month = end;
    }
    console.log(`\n${scratch ? scratch.version : "PGlite"}; ${reps} measured runs per case`);
    for (const l of lines) console.log(l);
  } finally {
    await client?.end();
    await server.stop();
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
