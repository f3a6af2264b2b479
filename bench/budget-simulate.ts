// Budget replay (POST /v1/budgets/simulate) at scale: a year-long replay of the organization with
// the most usage in a kept PostgreSQL database (bench/dashboard.ts --keep builds one with a 10M-event
// cycle), side by side with its floor: the read a live budget evaluation makes on every ingestion
// batch (cycleSpend of the largest cycle, from the same rollup). Issue 27's target: < 300 ms.
//
// Usage: npx tsx bench/budget-simulate.ts --database <name> [--runs 20]
//   BENCH_PG_URL (default postgres://root@127.0.0.1:5432/) names the server.
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { listCycles } from "../server/metering/billing/cycles";
import { simulateBudget } from "../server/metering/budgets/simulate";
import { cycleSpend } from "../server/metering/budgets/spend";
import { openDatabase } from "../server/platform/database";
import { startResults } from "./results";

const { values } = parseArgs({
  options: { database: { type: "string" }, runs: { type: "string", default: "20" } },
});
if (!values.database)
  throw new Error("--database <name> is required (a database kept by bench/dashboard.ts --keep)");
const base = process.env.BENCH_PG_URL ?? "postgres://root@127.0.0.1:5432/";
const runs = Number(values.runs);
const results = startResults("budget-simulate", "postgresql", { database: values.database, runs });
const database = await openDatabase({ kind: "postgres", url: `${base}${values.database}` });
const db = database.db;

type Rows<T> = { rows: T[] };
const top = (
  (await db.execute(sql`
    select organization_uuid as org, count(*)::int as days_rows, max(day)::text as last
      from usage_daily_coarse group by 1 order by 2 desc limit 1`)) as unknown as Rows<{
    org: string;
    days_rows: number;
    last: string;
  }>
).rows[0];
if (!top) throw new Error("the database has no usage");
const events = (
  (await db.execute(
    sql`select count(*)::int as n from usage_events where organization_uuid = ${top.org}`,
  )) as unknown as Rows<{
    n: number;
  }>
).rows[0]?.n;
// The replay's "today": the day after the organization's last usage, so the year covers all of it.
const now = new Date(new Date(`${top.last}T00:00:00Z`).getTime() + 86_400_000 + 3_600_000);
const cycles = await listCycles(db, top.org);
const largest = cycles[0];
if (!largest) throw new Error("the organization has no billing cycle");

const p = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
async function time(label: string, fn: () => Promise<unknown>) {
  await fn(); // warm the pool and the plan
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  console.log(
    `${label.padEnd(58)} p50 ${p(ms, 0.5).toFixed(1).padStart(7)} ms   p95 ${p(ms, 0.95).toFixed(1).padStart(7)} ms`,
  );
  return ms;
}

console.log(
  `organization ${top.org}: ${events?.toLocaleString("en-US")} events, ${top.days_rows.toLocaleString("en-US")} coarse rollup rows, ${cycles.length} cycles; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
const floor = await time("floor: a live budget's spend read (largest cycle)", () =>
  cycleSpend(db, { ...largest, endDate: largest.endDate }),
);
const replay = await time("replay: organization budget, hard limit, 366 days", () =>
  simulateBudget(
    db,
    top.org,
    { scope: "organization", amount: "1000", thresholds: [50, 80, 100], hard_limit: true, days: 366 },
    now,
  ),
);
const sim = await simulateBudget(
  db,
  top.org,
  { scope: "organization", amount: "1000", thresholds: [50, 80, 100], hard_limit: true, days: 366 },
  now,
);
console.log(
  `  (the replay fired ${sim.alerts.length} alerts and found ${sim.blocks.length} blocked periods)`,
);
const p95 = p(replay, 0.95);
const ratio = p95 / p(floor, 0.95);
console.log(
  `replay p95 ${p95.toFixed(1)} ms = ${ratio.toFixed(2)}× the floor; target < 300 ms: ${p95 < 300 ? "met" : "MISSED"}`,
);
console.log(
  `load at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
results.save([
  { id: "floor", label: "live budget spend read (floor)", value: p(floor, 0.95), unit: "ms p95" },
  {
    id: "replay-year",
    label: "budget replay, 366 days",
    value: p95,
    unit: "ms p95",
    ratio,
    baseline: "live budget spend read",
    target: { on: "value", op: "<", limit: 300 },
  },
]);
await database.close();
