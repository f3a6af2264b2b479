// Load: an authenticated list call of the product API (GET /v1/workspaces/ with a bearer token, and
// with an organization API key) against a bare Fastify route answering the same JSON from the same
// process, first at full speed (ratio of requests/s and latency to the bare route), then at fixed
// request rates (p50/p99 when the server is not saturated).
// The product and the bare route run in a child process of their own, so that the load generator
// (autocannon) does not share their event loop.
// Usage: npx tsx bench/load.ts [seconds per run, default 10] [connections, default 10]
//          [--rounds N] [--baseline <checkout>] [--profile] [--no-rates]
// --rounds N measures every target N times, alternating the order, and reports the medians.
// --baseline <checkout> also starts the server of another checkout (e.g. a git worktree of an
// earlier commit) and measures its two authenticated calls in the same run (before / after).
// --profile takes a V8 CPU profile of the server process during each authenticated full-speed run
// (the last round) and prints where its time went, by part of the stack; no fixed-rate runs.
// --no-rates skips the fixed-rate runs. The figures are saved through bench/results.ts.
// Embedded PGlite on a temporary directory, or a fresh database on DATABASE_URL (dropped after).
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Session } from "node:inspector";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import Fastify from "fastify";
import pg from "pg";
import pino from "pino";
import { buildProduct } from "../server/app";
import { createIngestKey } from "../server/metering/ingestion/ingest-keys";
import { seedDemoUsage } from "../server/seed";
import { loadBenchConfig } from "./bench-config";
import { demoAdmin } from "./demo-admin";
import { type Category, DEFAULT_CATEGORIES, type Profile, summarizeProfile } from "./metering-profile";
import { backendLabel, type Figure, startResults } from "./results";

export const PASSWORD = "bench-password";

/** What the server process tells its parent once it listens. */
export type Ready = {
  api: string;
  auth: string;
  bare: string;
  database: string;
  bearer: string;
  cookie: string;
  apiKey: string;
  /** The demo organization's ingestion key (POST /v1/usage/events). */
  ingestKey: string;
};

/** Messages the server process answers. */
type Request = { id: number; op: "memory" | "stop" | "profile-start" | "profile-stop" };

/** The server process: the product with a small demo, plus a bare Fastify route. */
async function serve() {
  const dir = mkdtempSync(join(tmpdir(), "eval-console-load-"));
  const baseUrl = process.env.DATABASE_URL;
  const dbName = `ec_load_${randomBytes(5).toString("hex")}`;
  let databaseUrl: string | undefined;
  if (baseUrl) {
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const u = new URL(baseUrl);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  }
  const config = loadBenchConfig({ dataDir: dir, password: PASSWORD, databaseUrl });
  const product = await buildProduct(config, pino({ level: "silent" }));
  await product.seed(false);
  // Billing cycles, the demo price list and a few usage events, so that reads have something to
  // read and ingestion has prices.
  await seedDemoUsage(
    { db: product.database.db, identity: product.identity.admin, workspaces: product.api.workspaces },
    { events: Number(process.env.DEMO_EVENTS ?? 2000) },
  );

  const { cookie, bearer, apiKey, orgId } = await demoAdmin(product, PASSWORD);
  const { token: ingestKey } = await createIngestKey(product.database.db, {
    name: "bench",
    organizationUuid: orgId,
  });

  // The bare route answers the very body the product's list call gives, from memory.
  const list = await product.api.app.inject({
    method: "GET",
    url: "/v1/workspaces/",
    headers: { authorization: `Bearer ${bearer}` },
  });
  if (list.statusCode !== 200) throw new Error(`workspace list: ${list.statusCode} ${list.body}`);
  const body = list.json();
  const bare = Fastify();
  bare.get("/v1/workspaces/", async () => body);

  const listen = async (app: { listen(o: object): Promise<string> }) =>
    app.listen({ host: "127.0.0.1", port: 0 });
  const ready: Ready = {
    auth: await listen(product.identity.app),
    api: await listen(product.api.app),
    bare: await listen(bare),
    database: product.database.kind === "pglite" ? "PGlite" : "PostgreSQL",
    bearer,
    cookie,
    apiKey,
    ingestKey,
  };
  process.send?.({ ready });

  const session = new Session();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
    );
  process.on("message", async (m: Request) => {
    if (m.op === "profile-start") {
      session.connect();
      await post("Profiler.enable");
      await post("Profiler.setSamplingInterval", { interval: 500 });
      await post("Profiler.start");
      process.send?.({ id: m.id, result: null });
      return;
    }
    if (m.op === "profile-stop") {
      const { profile } = (await post("Profiler.stop")) as { profile: unknown };
      session.disconnect();
      process.send?.({ id: m.id, result: profile });
      return;
    }
    if (m.op === "memory") {
      (globalThis as { gc?: () => void }).gc?.();
      const u = process.memoryUsage();
      process.send?.({ id: m.id, result: { rss: u.rss, heapUsed: u.heapUsed, heapTotal: u.heapTotal } });
      return;
    }
    await bare.close();
    await product.close();
    rmSync(dir, { recursive: true, force: true });
    if (databaseUrl && baseUrl) {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`drop database if exists ${dbName} with (force)`);
      await c.end();
    }
    process.send?.({ id: m.id, result: null });
    process.exit(0);
  });
}

export type ServerHandle = {
  ready: Ready;
  child: ChildProcess;
  memory(): Promise<{ rss: number; heapUsed: number; heapTotal: number }>;
  /** A V8 CPU profile of the server process between the two calls. */
  profileStart(): Promise<void>;
  profileStop(): Promise<Profile>;
  stop(): Promise<void>;
};

/**
 * Starts the server process (this file with --serve; or the same file of another checkout, e.g.
 * an earlier commit to compare with) and waits until it listens.
 */
export async function startServerProcess(root?: string): Promise<ServerHandle> {
  const file = root ? join(resolve(root), "bench/load.ts") : fileURLToPath(import.meta.url);
  // --expose-gc: memory is read after a full collection, so that heap figures compare over time.
  const child = fork(file, ["--serve"], {
    ...(root ? { cwd: resolve(root) } : {}),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: [...process.execArgv, "--expose-gc"],
  });
  let next = 0;
  const pending = new Map<number, (v: unknown) => void>();
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once("exit", (code) =>
      reject(new Error(`the server process exited (${code}) before it was ready`)),
    );
    child.on("message", (m: { ready?: Ready; id?: number; result?: unknown }) => {
      if (m.ready) resolve(m.ready);
      else if (m.id !== undefined) {
        pending.get(m.id)?.(m.result);
        pending.delete(m.id);
      }
    });
  });
  const call = (op: Request["op"]) =>
    new Promise<unknown>((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      child.send({ id, op });
    });
  return {
    ready,
    child,
    memory: () => call("memory") as Promise<{ rss: number; heapUsed: number; heapTotal: number }>,
    profileStart: async () => void (await call("profile-start")),
    profileStop: () => call("profile-stop") as Promise<Profile>,
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      await call("stop");
      await exited;
    },
  };
}

/** The machine, for the record next to the figures. */
export function machine(): string {
  const c = cpus();
  return `${c.length} cores (${c[0]?.model.trim() ?? "unknown CPU"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`;
}

type Target = { name: string; url: string; headers: Record<string, string> };
type Figures = {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  /** CPU time of the server process per request, in µs (user + system). */
  cpuUs: number;
};

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; 0 elsewhere). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // clock ticks of 10 ms (getconf CLK_TCK)
  } catch {
    return 0;
  }
}

/**
 * One autocannon run. With the server's pid, its CPU time per request too: on a machine shared
 * with other work, requests/s follow the machine's load, but the CPU a request costs the server
 * hardly does, so the ratio of CPU per request is the steadier comparison.
 */
async function cannon(
  t: Target,
  seconds: number,
  connections: number,
  rate?: number,
  pid?: number,
): Promise<Figures> {
  const cpu0 = cpuSeconds(pid);
  const r = await autocannon({
    url: t.url,
    headers: t.headers,
    connections,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
    requests: r.requests.total,
    cpuUs: r.requests.total ? ((cpuSeconds(pid) - cpu0) * 1e6) / r.requests.total : 0,
  };
}

const byUrl =
  (re: RegExp): Category[1] =>
  (n) =>
    re.test(n.callFrame.url);

/** The parts of the stack an authenticated call goes through, for --profile. */
const AUTH_CATEGORIES: Category[] = [
  ...DEFAULT_CATEGORIES.slice(0, 3), // idle, garbage collection, the PGlite engine
  ["jose: JWT parsing and RS256 verification", byUrl(/node_modules\/jose\//)],
  ["node:crypto (signature, hashing)", byUrl(/^node:(crypto|internal\/crypto)/)],
  ["zod (query validation, response checks)", byUrl(/node_modules\/zod\//)],
  ["drizzle-orm (SQL building, row mapping)", byUrl(/node_modules\/drizzle-orm\//)],
  ["pg driver", byUrl(/node_modules\/(pg|pg-protocol|pg-types|pg-pool)\//)],
  [
    "fastify (routing, hooks, reply)",
    byUrl(/node_modules\/(fastify|find-my-way|avvio|@fastify|light-my-request)/),
  ],
  [
    "product API: auth (principal, token versions)",
    byUrl(/server\/api\/(principal|token-versions|route-hooks)/),
  ],
  ["product API: other (workspaces, access, schemas)", byUrl(/server\/api\//)],
  ["identity (API key validation, directory)", byUrl(/server\/identity\//)],
  ["other product code (server/)", byUrl(/\/server\//)],
  ["node internals (http, streams, timers)", (n) => n.callFrame.url.startsWith("node:")],
  ["V8 builtins (JSON, regexps, …)", (n) => n.callFrame.url === ""],
];

type Options = {
  seconds: number;
  connections: number;
  rounds: number;
  profile: boolean;
  rates: boolean;
  /** A checkout of an earlier commit whose server is measured in the same run (before / after). */
  baseline: string | null;
};

function options(argv: string[]): Options {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      profile: { type: "boolean" },
      "no-rates": { type: "boolean" },
      rounds: { type: "string" },
      baseline: { type: "string" },
    },
  });
  return {
    seconds: Number(positionals[0] ?? 10),
    connections: Number(positionals[1] ?? 10),
    rounds: Number(values.rounds ?? 1),
    profile: values.profile === true,
    rates: values["no-rates"] !== true && values.profile !== true,
    baseline: values.baseline ?? null,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

async function main() {
  const o = options(process.argv.slice(2));
  const { seconds, connections } = o;
  const results = startResults("load", backendLabel(), {
    seconds,
    connections,
    rounds: o.rounds,
    events: Number(process.env.DEMO_EVENTS ?? 2000),
    ...(o.baseline ? { baseline: o.baseline } : {}),
  });
  const server = await startServerProcess();
  const before = o.baseline ? await startServerProcess(o.baseline) : null;
  const { ready } = server;
  try {
    const api = (r: Ready, label: string): Target[] => [
      {
        name: `GET /v1/workspaces/ bearer${label}`,
        url: `${r.api}/v1/workspaces/`,
        headers: { authorization: `Bearer ${r.bearer}` },
      },
      {
        name: `GET /v1/workspaces/ x-api-key${label}`,
        url: `${r.api}/v1/workspaces/`,
        headers: { "x-api-key": r.apiKey },
      },
    ];
    const bare: Target = {
      name: "bare Fastify route (baseline)",
      url: `${ready.bare}/v1/workspaces/`,
      headers: {},
    };
    const targets: Target[] = [bare, ...api(ready, ""), ...(before ? api(before.ready, " (before)") : [])];
    for (const t of targets) {
      const res = await fetch(t.url, { headers: t.headers });
      if (res.status !== 200) throw new Error(`${t.name}: ${res.status} ${await res.text()}`);
      await cannon(t, 2, connections); // warm-up
    }

    console.log(
      `machine: ${machine()}; database: ${ready.database}; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    console.log(
      `full speed: ${connections} connections, ${seconds} s per target, ${o.rounds} round(s) (median)`,
    );
    const row = (name: string, f: Figures, extra = "") =>
      console.log(
        name.padEnd(44),
        f.rps.toFixed(0).padStart(8),
        f.p50.toFixed(1).padStart(8),
        f.p99.toFixed(1).padStart(8),
        String(f.errors).padStart(7),
        f.cpuUs ? f.cpuUs.toFixed(0).padStart(8) : "".padStart(8),
        extra,
      );
    const header = (first: string, extra = "") =>
      console.log(
        first.padEnd(44),
        "req/s".padStart(8),
        "p50 ms".padStart(8),
        "p99 ms".padStart(8),
        "errors".padStart(7),
        "CPU µs".padStart(8),
        extra,
      );

    // Rounds alternate the order of the targets, so that a burst of load on the machine does not
    // always land on the same one; each target's figures are the medians over the rounds.
    const runs = new Map<string, Figures[]>();
    const profiles: string[] = [];
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 ? [...targets].reverse() : targets;
      for (const t of order) {
        const profiling = o.profile && round === o.rounds - 1 && t !== bare;
        const owner = t.name.endsWith("(before)") && before ? before : server;
        if (profiling) await owner.profileStart();
        const f = await cannon(t, seconds, connections, undefined, owner.child.pid);
        if (profiling)
          profiles.push(`${t.name}:\n${summarizeProfile(await owner.profileStop(), 14, AUTH_CATEGORIES)}`);
        runs.set(t.name, [...(runs.get(t.name) ?? []), f]);
      }
    }
    const fig = (t: Target): Figures => {
      const fs = runs.get(t.name) ?? [];
      return {
        rps: median(fs.map((f) => f.rps)),
        p50: median(fs.map((f) => f.p50)),
        p99: median(fs.map((f) => f.p99)),
        errors: fs.reduce((a, f) => a + f.errors, 0),
        requests: fs.reduce((a, f) => a + f.requests, 0),
        cpuUs: median(fs.map((f) => f.cpuUs)),
      };
    };
    const base = fig(bare);
    header("target", "  vs bare route (req/s, p50, p99; bare CPU/request ÷ this one's)");
    for (const t of targets) {
      const f = fig(t);
      row(
        t.name,
        f,
        `  ${(f.rps / base.rps).toFixed(2)}x, ${(f.p50 / Math.max(base.p50, 0.5)).toFixed(1)}x, ${(f.p99 / Math.max(base.p99, 0.5)).toFixed(1)}x; ${(base.cpuUs / f.cpuUs).toFixed(2)}x`,
      );
    }
    const [bearerT, keyT] = api(ready, "");
    const bearer = fig(bearerT as Target);
    const key = fig(keyT as Target);
    // The targets, judged here so a run says at once whether it met them.
    const verdict = (x: number, floor: number) =>
      `${x.toFixed(3)} (≥ ${floor.toFixed(2)}: ${x >= floor ? "met" : "MISSED"})`;
    // Each round's two runs follow each other (the order alternates, the two stay neighbours), so
    // the ratio within a round shares the machine's state of that moment; on a shared machine the
    // median of those ratios moves less than the ratio of the two medians.
    const keyRuns = runs.get((keyT as Target).name) ?? [];
    const perRound = median(
      (runs.get((bearerT as Target).name) ?? []).map((b, i) => (keyRuns[i]?.rps ?? 0) / b.rps),
    );
    console.log(
      `\nbearer / bare ${verdict(bearer.rps / base.rps, 0.5)}   x-api-key / bearer ${verdict(key.rps / bearer.rps, 0.9)} by requests/s, ${verdict(perRound, 0.9)} by requests/s within each round (median), ${verdict(bearer.cpuUs / key.cpuUs, 0.9)} by server CPU per request`,
    );
    const figures: Figure[] = [
      { id: "bare", label: "bare Fastify route", value: base.rps, unit: "req/s" },
      {
        id: "bearer-list",
        label: "workspace list, bearer",
        value: bearer.rps,
        unit: "req/s",
        ratio: bearer.rps / base.rps,
        baseline: "bare Fastify route",
        target: { on: "ratio", op: ">=", limit: 0.5 },
      },
      {
        id: "api-key-list",
        label: "workspace list, x-api-key",
        value: key.rps,
        unit: "req/s",
        ratio: key.rps / bearer.rps,
        baseline: "bearer",
        target: { on: "ratio", op: ">=", limit: 0.9 },
      },
    ];
    figures.push({
      id: "api-key-list-rounds",
      label: "workspace list, x-api-key / bearer within each round (median)",
      value: key.rps,
      unit: "req/s",
      ratio: perRound,
      baseline: "bearer, run next to it in the same round",
      target: { on: "ratio", op: ">=", limit: 0.9 },
    });
    // The same ratios from the server's CPU time per request (steadier on a loaded machine).
    figures.push(
      {
        id: "bearer-list-cpu",
        label: "workspace list, bearer: server CPU per request",
        value: bearer.cpuUs,
        unit: "µs/req",
        ratio: base.cpuUs / bearer.cpuUs,
        baseline: "bare route's CPU per request (bare / this)",
        target: { on: "ratio", op: ">=", limit: 0.5 },
      },
      {
        id: "api-key-list-cpu",
        label: "workspace list, x-api-key: server CPU per request",
        value: key.cpuUs,
        unit: "µs/req",
        ratio: bearer.cpuUs / key.cpuUs,
        baseline: "bearer's CPU per request (bearer / this)",
        target: { on: "ratio", op: ">=", limit: 0.9 },
      },
    );
    if (before) {
      const [b, k] = api(before.ready, " (before)").map((t) => fig(t));
      console.log(
        `after / before: bearer ${(bearer.rps / (b as Figures).rps).toFixed(2)}x, x-api-key ${(key.rps / (k as Figures).rps).toFixed(2)}x (req/s); ` +
          `bearer ${((b as Figures).cpuUs / bearer.cpuUs).toFixed(2)}x, x-api-key ${((k as Figures).cpuUs / key.cpuUs).toFixed(2)}x (CPU per request)`,
      );
      figures.push(
        {
          id: "bearer-list-before",
          label: "workspace list, bearer (before)",
          value: (b as Figures).rps,
          unit: "req/s",
          ratio: (b as Figures).rps / base.rps,
          baseline: "bare Fastify route",
        },
        {
          id: "api-key-list-before",
          label: "workspace list, x-api-key (before)",
          value: (k as Figures).rps,
          unit: "req/s",
          ratio: (k as Figures).rps / (b as Figures).rps,
          baseline: "bearer (before)",
        },
      );
    }
    results.save(figures, before ? [`before: the server of ${o.baseline}, measured in the same run`] : []);
    for (const p of profiles) console.log(`\nserver CPU profile, ${p}`);
    if (!o.rates) return;

    console.log(`\nfixed rates (autocannon overallRate), ${connections} connections, ${seconds} s each`);
    header("target @ rate");
    for (const rate of [100, 500, 1000])
      for (const t of targets) {
        const f = await cannon(t, seconds, connections, rate);
        row(`${t.name.replace(" (baseline)", "")} @ ${rate}/s`, f);
      }
    console.log("(latencies are autocannon's, in whole milliseconds; 0 means under 1 ms)");
  } finally {
    await Promise.all([server.stop(), before?.stop()]);
  }
}

if (process.argv.includes("--serve")) {
  serve().catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
