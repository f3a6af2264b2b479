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

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { type Figure, startResults } from "./results";

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
const PORT = Number(flags.port);
const API = `http://127.0.0.1:${PORT}`;
const AUTH = `http://127.0.0.1:${PORT + 1}`;
const PASSWORD = "heavy-reads-bench-password";

const dataDir = mkdtempSync(join(tmpdir(), "eval-console-bench-heavy-"));
const server = spawn(process.execPath, ["--import", "tsx", "server/main.ts", "serve"], {
  env: {
    ...process.env,
    DATABASE_URL: "",
    DATABASE_READ_URL: "",
    DATA_DIR: dataDir,
    PORT: String(PORT),
    AUTH_PORT: String(PORT + 1),
    PUBLIC_URL: API,
    AUTH_PUBLIC_URL: AUTH,
    DEMO_PASSWORD: PASSWORD,
    DEMO_EVENTS: String(EVENTS),
    SEED_DEMO: "always",
    LOG_LEVEL: "warn",
    API_RATE_LIMIT_PER_CREDENTIAL: "0",
    API_RATE_LIMIT_PER_ORG: "0",
    INGEST_RATE_LIMIT_PER_KEY: "0",
    INGEST_RATE_LIMIT_PER_ORG: "0",
  },
  stdio: ["ignore", "pipe", "inherit"],
});
let out = "";
server.stdout.on("data", (d) => (out += d));
const stop = () => {
  server.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
};
process.on("exit", () => server.kill("SIGKILL"));

async function until(check: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end || server.exitCode !== null) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Signs a demo user in on the hosted form and returns an access token. */
async function accessToken(email: string): Promise<string> {
  const login = await fetch(`${AUTH}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
    body: new URLSearchParams({ email, password: PASSWORD }).toString(),
  });
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const res = await fetch(`${AUTH}/api/v1/refresh_token`, { headers: { cookie } });
  if (!res.ok) throw new Error(`sign-in of ${email}: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A second organization of its own, as any signed-in user can make one, and its admin's token. */
async function otherOrganizationToken(): Promise<string> {
  const login = await fetch(`${AUTH}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
    body: new URLSearchParams({ email: "newcomer@acme.test", password: PASSWORD }).toString(),
  });
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const made = await fetch(`${AUTH}/api/fe/v3/create_org`, {
    method: "POST",
    headers: { cookie, "x-csrf-token": "-.-", "content-type": "application/json", origin: API },
    body: JSON.stringify({ name: `Bench Other ${Date.now()}` }),
  });
  if (!made.ok) throw new Error(`create org: ${made.status} ${await made.text()}`);
  const org = ((await made.json()) as { org_id: string }).org_id;
  const res = await fetch(`${AUTH}/api/v1/refresh_token?active_org_id=${org}`, { headers: { cookie } });
  return ((await res.json()) as { access_token: string }).access_token;
}

const p = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};

/** `n` sequential probes of `url`, 10 ms apart: their latencies in ms. */
async function probe(url: string, n: number, headers: Record<string, string> = {}): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers, redirect: "manual" });
    await res.arrayBuffer();
    if (res.status >= 500) throw new Error(`${url}: ${res.status}`);
    times.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  return times;
}

/** Runs `work` over and over until `signal` aborts; counts answers by status. */
async function loop(work: () => Promise<Response>, signal: AbortSignal, counts: Map<number, number>) {
  while (!signal.aborted) {
    try {
      const res = await work();
      await res.arrayBuffer();
      counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
    } catch {
      if (!signal.aborted) counts.set(0, (counts.get(0) ?? 0) + 1);
    }
  }
}

async function main() {
  const results = startResults("heavy-reads", "pglite", { events: EVENTS, probes: PROBES });
  await until(() => out.includes("Eval Console is running"), 600_000);
  const admin = await accessToken("admin@acme.test");
  const other = await otherOrganizationToken();
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
  const answers = [...counts].map(([s, n]) => `${s === 0 ? "network error" : s}: ${n}`).join(", ");
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
  .finally(stop);
