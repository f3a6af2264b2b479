// Does one administrator's heavy reading hold up everyone else? The served product (its own
// process, as `npm start` runs it) on the embedded database with the demo's usage; the probes
// GET /healthz (product API) and GET /login (hosted sign-in) are timed first on the idle server,
// then again while two large CSV reports (hourly, grouped by all seven dimensions) and a
// pathological records search (200 "%") run over and over. The goal (issue: the embedded
// database off the request thread): under load, each probe's p95 within 2× of idle and < 100 ms.
// A third figure, another organization's GET /v1/budgets, shows what still waits for the
// database: the embedded database runs one statement at a time.
//
// Usage: npx tsx bench/heavy-reads.ts [--events 100000] [--probes 300] [--port 3460]
// Always the embedded database (DATABASE_URL is ignored): the one that runs in the server.

import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { type Figure, startResults } from "./results";
import { describeCounts, loop, quantile as p, probe, serveProduct } from "./served-product";

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    events: { type: "string", default: "100000" },
    probes: { type: "string", default: "300" },
    port: { type: "string", default: "3460" },
  },
});
const EVENTS = Number(flags.events);
const PROBES = Number(flags.probes);
const served = serveProduct({
  port: Number(flags.port),
  events: EVENTS,
  label: "heavy",
  env: {
    API_RATE_LIMIT_PER_CREDENTIAL: "0",
    API_RATE_LIMIT_PER_ORG: "0",
    INGEST_RATE_LIMIT_PER_KEY: "0",
    INGEST_RATE_LIMIT_PER_ORG: "0",
  },
});
const API = served.api;
const AUTH = served.auth;

async function main() {
  const results = startResults("heavy-reads", "pglite", { events: EVENTS, probes: PROBES });
  await served.started();
  const admin = await served.accessToken("admin@acme.test");
  const other = (await served.newOrganization("newcomer@acme.test", `Bench Other ${Date.now()}`)).token;
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const probes = {
    healthz: () => probe(`${API}/healthz`, PROBES),
    login: () => probe(`${AUTH}/login`, PROBES),
    budgets: () => probe(`${API}/v1/budgets`, Math.ceil(PROBES / 3), bearer(other)),
  };
  // Idle: each probe alone (after a warm-up).
  for (const f of Object.values(probes)) await f();
  const idle = {
    healthz: await probes.healthz(),
    login: await probes.login(),
    budgets: await probes.budgets(),
  };

  // 40 days of hours: 960 buckets, under the report's 1,000.
  const since = new Date(Date.now() - 40 * 86_400_000).toISOString();
  const report = `${API}/v1/usage/report?bucket_width=1h&starting_at=${encodeURIComponent(since)}&group_by=${encodeURIComponent("workspace,eval_type,operation,modality,eval_run,created_by,api_key")}`;
  const search = `${API}/v1/usage/records?search=${encodeURIComponent("%".repeat(200))}&page_size=500`;
  const abort = new AbortController();
  const counts = new Map<number, number>();
  const csv = () =>
    fetch(report, { headers: { ...bearer(admin), accept: "text/csv" }, signal: abort.signal });
  const heavy = [
    loop(csv, abort.signal, counts),
    loop(csv, abort.signal, counts),
    loop(() => fetch(search, { headers: bearer(admin) }), abort.signal, counts),
  ];
  await new Promise((r) => setTimeout(r, 1000));
  const busy = {
    healthz: await probes.healthz(),
    login: await probes.login(),
    budgets: await probes.budgets(),
  };
  abort.abort();
  await Promise.allSettled(heavy);

  const figures: Figure[] = [];
  for (const [name, label] of [
    ["healthz", "GET /healthz"],
    ["login", "GET /login"],
    ["budgets", "other org's GET /v1/budgets"],
  ] as const) {
    const base = p(idle[name], 0.95);
    figures.push({ id: `${name}-idle`, label: `${label}, idle p95`, value: base, unit: "ms" });
    const loaded = p(busy[name], 0.95);
    const goal = name !== "budgets";
    figures.push({
      id: `${name}-busy`,
      label: `${label}, under heavy reads p95`,
      value: loaded,
      unit: "ms",
      ratio: loaded / base,
      baseline: `${label}, idle`,
      ...(goal ? { target: { on: "ratio" as const, op: "<=" as const, limit: 2 } } : {}),
    });
    if (goal)
      figures.push({
        id: `${name}-busy-abs`,
        label: `${label}, under heavy reads p95 (< 100 ms)`,
        value: loaded,
        unit: "ms",
        target: { on: "value", op: "<", limit: 100 },
      });
  }
  // A heavy call refused at once (4xx) is no load: the run only counts if they were served.
  if ((counts.get(200) ?? 0) < [...counts.values()].reduce((a, b) => a + b, 0) / 2)
    throw new Error(`the heavy calls were mostly refused: ${JSON.stringify([...counts])}`);
  const answers = describeCounts(counts);
  console.log(
    `\nheavy reads (${EVENTS} events, pglite), load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log(`heavy calls answered: ${answers}`);
  for (const f of figures)
    console.log(
      `  ${f.label.padEnd(52)} ${f.value.toFixed(1).padStart(8)} ${f.unit}${f.ratio !== undefined ? `  ${f.ratio.toFixed(2)}× idle` : ""}`,
    );
  results.save(figures, [`heavy calls answered: ${answers}`]);
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(served.stop);
