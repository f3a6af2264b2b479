// The console in a real browser: navigation to the Billing & Usage page ("/") until its records
// table shows rows and its chart has drawn, in headless Chromium, for the demo organization on
// the embedded database and for a current billing cycle of about 1M events on PostgreSQL; the
// bytes that cross the wire on a first visit; and the JavaScript sizes (the entry chunk and its
// static imports, and the chart chunk), gzip and brotli.
//
// With --baseline-dir, a second console build (the previous commit's, built to another folder) is
// served by a second product on the same data and measured in the same run, visit for visit in
// turn with the current build, so that both see the same machine load.
//
// Cold: a new browser context per run (empty HTTP cache, same signed-in session). Warm: one
// context, one discarded visit, then repeated visits (assets from the HTTP cache). Each figure is
// the page's own clock (performance.now(), zero at navigation start) at the first animation frame
// where both are on screen, so the time includes the session refresh, the current user, the page
// chunk, the data calls, the chart chunk and its first drawing. A visit that showed an empty
// records table, "0 total records" or an empty chart before its rows counts as a flash.
//
// Usage: npx tsx bench/console.ts [--runs 10] [--events 1000000] [--skip-1m] [--keep-db] [--quick]
//          [--console-dir dist] [--baseline-dir DIR] [--port 4700] [--profile]
//   --quick: 3 runs, demo only (the `npm run bench` summary's size).
//   --profile: after the measured visits, one warm and one cold visit of the current build under
//   Chromium's CPU profiler, printed as self time per script and per function.
//   --console-dir: the build to measure (built with `vite build` when it has no index.html).
//   --baseline-dir: a build to measure side by side (e.g. `git worktree add /tmp/base HEAD~1`,
//   then `npx vite build --outDir DIR` in it); its folder is served as it is, so a build without
//   .br/.gz copies goes out uncompressed, as before the build made them.
//   DEMO_PASSWORD (default acme-demo-2026) signs in admin@acme.test on both products.
//   BENCH_PG_URL (default postgres://root@127.0.0.1:5432/postgres): the server on which the
//   database bench_console is created, seeded, and dropped at the end (kept with --keep-db, and
//   reused, seeding only what is missing, when it already exists).
//   CHROMIUM_PATH (default /usr/bin/chromium); --port P uses P, P+1 (demo), P+2, P+3 (baseline
//   demo), P+10, P+11 (1M) and P+12, P+13 (baseline 1M).

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { type Browser, type BrowserContext, chromium } from "@playwright/test";
import pg from "pg";
import { type ProfileSummary, printProfile, profileVisit } from "./console-profile";
import { type Figure, startResults } from "./results";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: "string" },
    events: { type: "string" },
    port: { type: "string" },
    "console-dir": { type: "string" },
    "baseline-dir": { type: "string" },
    quick: { type: "boolean" },
    "skip-1m": { type: "boolean" },
    "keep-db": { type: "boolean" },
    profile: { type: "boolean" },
  },
});
const QUICK = args.quick === true;
const flag = (name: "skip-1m" | "keep-db" | "profile") => args[name] === true;
const option = (name: "runs" | "events" | "port", fallback: number) => {
  const n = args[name] === undefined ? fallback : Number(args[name]);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number`);
  return n;
};
const RUNS = option("runs", QUICK ? 3 : 10);
const CYCLE_EVENTS = option("events", 1_000_000);
const PORT = option("port", 4700);
const CONSOLE_DIR = resolve(args["console-dir"] ?? "dist");
const BASELINE_DIR = args["baseline-dir"] ? resolve(args["baseline-dir"]) : null;
const PASSWORD = process.env.DEMO_PASSWORD || "acme-demo-2026";
const PG_URL = process.env.BENCH_PG_URL || "postgres://root@127.0.0.1:5432/postgres";
const DB_NAME = "bench_console";
/** The issue's targets: rows + chart drawn, p50. */
const TARGET = { warm: 1000, cold: 1500 };
const VIEWPORT = { width: 1440, height: 900 }; // the chart is hidden below 768 px
const TSX = "node_modules/.bin/tsx";

type Sizes = {
  initialGzip: number;
  initialBrotli: number;
  initialFiles: string[];
  chartGzip: number;
  chartBrotli: number;
  chartFile: string;
  chartInitial: boolean;
  precompressed: boolean;
};

/** kB as Vite reports them (1000 bytes). */
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/** The JavaScript a first visit needs before the app runs, and the chart chunk, compressed. */
function jsSizes(dir: string): Sizes {
  if (!existsSync(join(dir, "index.html"))) {
    console.log(`${dir} has no build: building the console...`);
    const r = spawnSync("npx", ["vite", "build", "--logLevel", "warn", "--outDir", dir, "--emptyOutDir"], {
      stdio: "inherit",
    });
    if (r.status !== 0) throw new Error("vite build failed");
  }
  const html = readFileSync(join(dir, "index.html"), "utf8");
  const roots = [
    ...html.matchAll(/<script[^>]*type="module"[^>]*src="\/([^"]+)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="\/([^"]+)"/g),
  ].map((m) => m[1]!);
  // The entry and, transitively, its static imports (`import … from"./x.js"` or `import"./x.js"`;
  // `import("./x.js")` is dynamic and left out).
  const initial = new Set<string>();
  const visit = (file: string) => {
    if (initial.has(file)) return;
    initial.add(file);
    const code = readFileSync(join(dir, file), "utf8");
    const folder = file.slice(0, file.lastIndexOf("/") + 1);
    for (const m of code.matchAll(/(?:\bfrom|\bimport)\s*"\.\/([^"]+\.js)"/g)) visit(`${folder}${m[1]}`);
  };
  for (const root of roots) visit(root);
  // Default gzip level and the strongest brotli, as a server compressing per request and the build
  // (which writes .br at quality 11 and .gz at level 9) would send them.
  const gz = (file: string) => gzipSync(readFileSync(join(dir, file))).length;
  const br = (file: string) =>
    brotliCompressSync(readFileSync(join(dir, file)), {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
    }).length;
  const chartFile = readdirSync(join(dir, "assets")).find((f) => /^stacked-bars-[\w-]+\.js$/.test(f));
  if (!chartFile)
    throw new Error(`no stacked-bars chunk in ${dir}/assets: is the chart still lazily loaded?`);
  const sum = (f: (file: string) => number) => [...initial].reduce((total, file) => total + f(file), 0);
  return {
    initialGzip: sum(gz),
    initialBrotli: sum(br),
    initialFiles: [...initial],
    chartGzip: gz(`assets/${chartFile}`),
    chartBrotli: br(`assets/${chartFile}`),
    chartFile,
    chartInitial: initial.has(`assets/${chartFile}`),
    precompressed: existsSync(join(dir, `assets/${chartFile}.br`)),
  };
}

type Product = { url: string; authUrl: string; stop: () => Promise<void> };
const children = new Set<ChildProcess>();

async function startProduct(name: string, port: number, env: Record<string, string>): Promise<Product> {
  const child = spawn(TSX, ["server/main.ts", "serve"], {
    env: {
      ...process.env,
      PORT: String(port),
      AUTH_PORT: String(port + 1),
      HOST: "127.0.0.1",
      DEMO_PASSWORD: PASSWORD,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.add(child);
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://localhost:${port}`;
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} product exited:\n${stderr}`);
    if (Date.now() > deadline) throw new Error(`${name} product not ready in time:\n${stderr}`);
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    authUrl: `http://localhost:${port + 1}`,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      children.delete(child);
    },
  };
}

function stopAllOnExit() {
  const kill = () => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  };
  process.once("SIGINT", () => {
    kill();
    process.exit(130);
  });
  process.once("exit", kill);
}

/** Runs `server/main.ts seed --events n`, with its progress bar, on the given database. */
function seed(databaseUrl: string, events: number) {
  const r = spawnSync(TSX, ["server/main.ts", "seed", "--events", String(events)], {
    env: { ...process.env, DATABASE_URL: databaseUrl, DEMO_PASSWORD: PASSWORD, LOG_LEVEL: "warn" },
    stdio: "inherit",
  });
  if (r.status !== 0) throw new Error("seeding failed");
}

/**
 * Events the demo seed must generate so that its current cycle gets about `inCycle`: the seed
 * spreads them from the first of its three monthly cycles (the current month's start minus two
 * months) to now, the current cycle being this month so far.
 */
function eventsForCurrentCycle(inCycle: number, now = new Date()): number {
  const current = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 1);
  return Math.ceil((inCycle * (now.getTime() - first)) / (now.getTime() - current));
}

/**
 * Runs in every document: on each animation frame, notes when the first records row and a drawn
 * chart canvas (some non-transparent pixel) are on screen, and whether, before the rows, the page
 * showed an empty table, "0 total records" or an empty chart (a flash of a wrong answer).
 */
const PROBE = `(() => {
  const t = { rows: 0, chart: 0, flash: "" };
  const small = document.createElement("canvas");
  small.width = 64;
  small.height = 16;
  const drawn = (c) => {
    try {
      const g = small.getContext("2d", { willReadFrequently: true });
      g.clearRect(0, 0, 64, 16);
      g.drawImage(c, 0, 0, 64, 16);
      const d = g.getImageData(0, 0, 64, 16).data;
      for (let i = 3; i < d.length; i += 4) if (d[i]) return true;
    } catch {}
    return false;
  };
  const tick = () => {
    const now = performance.now();
    if (!t.rows && document.querySelector(".ant-table-tbody tr.ant-table-row")) t.rows = now;
    if (!t.rows && !t.flash) {
      const pager = document.querySelector('[data-testid="records-pagination"]');
      if (document.querySelector(".ant-table-tbody .ant-empty")) t.flash = "empty records table";
      else if (pager && /\\(0 total records\\)/.test(pager.textContent || "")) t.flash = "0 total records";
      else if (document.querySelector('[data-testid="usage-chart"] .ant-empty')) t.flash = "empty chart";
    }
    if (!t.chart) {
      const c = document.querySelector('[data-testid="usage-chart-canvas"] canvas');
      if (c && c.width > 0 && drawn(c)) t.chart = now;
    }
    if (t.rows && t.chart) {
      const pager = document.querySelector('[data-testid="records-pagination"]');
      window.__consoleBench = { ...t, ready: Math.max(t.rows, t.chart), pager: pager ? pager.textContent : "" };
      return;
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;

type Visit = { rows: number; chart: number; ready: number; pager: string; flash: string; bytes: number };

/** One navigation to "/", with the bytes its responses took on the wire (headers and bodies). */
async function visit(context: BrowserContext, url: string): Promise<Visit> {
  const page = context.pages()[0] ?? (await context.newPage());
  let bytes = 0;
  const pending: Promise<void>[] = [];
  const count = (request: import("@playwright/test").Request) => {
    pending.push(
      request.sizes().then(
        (s) => {
          bytes += s.responseHeadersSize + s.responseBodySize;
        },
        () => {},
      ),
    );
  };
  page.on("requestfinished", count);
  try {
    await page.goto(`${url}/`, { waitUntil: "commit" });
    const handle = await page.waitForFunction(
      () => (window as unknown as { __consoleBench?: Visit }).__consoleBench,
      undefined,
      { timeout: 60_000 },
    );
    const result = (await handle.jsonValue()) as Visit;
    await Promise.all(pending);
    return { ...result, bytes };
  } finally {
    page.off("requestfinished", count);
  }
}

/** Signs admin@acme.test in on the hosted login page; returns the session for new contexts. */
async function signIn(browser: Browser, product: Product) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  await page.goto(`${product.url}/`);
  await page.waitForURL((u) => u.href.startsWith(`${product.authUrl}/login`), { timeout: 30_000 });
  await page.getByLabel("Email").fill("admin@acme.test");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${product.url}/`, { timeout: 30_000 });
  await page.locator(".ant-table-tbody tr.ant-table-row").first().waitFor({ timeout: 60_000 });
  const state = await context.storageState();
  await context.close();
  return state;
}

type Measured = { cold: Visit[]; warm: Visit[]; records: string };
/** --profile: CPU profiles of the current build's visits, printed after the figures. */
const profiles: [string, ProfileSummary][] = [];

/**
 * Measures each product (one per console build) in turn, visit by visit: cold visits, then warm
 * ones, so that a burst of load on the shared machine falls on both builds alike.
 */
async function measure(browser: Browser, products: Product[]): Promise<Measured[]> {
  const sessions = await Promise.all(products.map((p) => signIn(browser, p)));
  const fresh = async (i: number) => {
    const context = await browser.newContext({ viewport: VIEWPORT, storageState: sessions[i] });
    await context.addInitScript(PROBE);
    return context;
  };
  const results: Measured[] = products.map(() => ({ cold: [], warm: [], records: "?" }));
  for (let run = 0; run < RUNS; run++)
    for (const [i, p] of products.entries()) {
      const context = await fresh(i);
      results[i]!.cold.push(await visit(context, p.url));
      await context.close();
    }
  const contexts = await Promise.all(products.map((_, i) => fresh(i)));
  for (const [i, p] of products.entries()) await visit(contexts[i]!, p.url); // fills the HTTP cache
  for (let run = 0; run < RUNS; run++)
    for (const [i, p] of products.entries()) results[i]!.warm.push(await visit(contexts[i]!, p.url));
  if (flag("profile")) {
    // The current build is measured last in `products`; one warm and one cold visit, profiled.
    const i = products.length - 1;
    const warm = await profileVisit(contexts[i]!, () => visit(contexts[i]!, products[i]!.url));
    profiles.push([`warm visit (rows + chart at ${warm.result.ready.toFixed(0)} ms)`, warm.summary]);
    const context = await fresh(i);
    const cold = await profileVisit(context, () => visit(context, products[i]!.url));
    profiles.push([`cold visit (rows + chart at ${cold.result.ready.toFixed(0)} ms)`, cold.summary]);
    await context.close();
  }
  await Promise.all(contexts.map((c) => c.close()));
  for (const r of results) r.records = /\(([\d,]+) total records\)/.exec(r.cold[0]?.pager ?? "")?.[1] ?? "?";
  return results;
}

function pct(samples: readonly number[], p: number) {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * p) - 1))] ?? Number.NaN;
}

type Build = "current" | "baseline";
type Row = { dataset: string; build: Build; m: Measured };

const p50 = (visits: Visit[], pick: (v: Visit) => number = (v) => v.ready) => pct(visits.map(pick), 0.5);

function report(rows: Row[], sizes: Record<Build, Sizes | null>, header: string[]) {
  for (const line of header) console.log(line);
  console.log(
    `\nnavigation to records rows + chart drawn on "/" (ms since navigation start), ${RUNS} runs each`,
  );
  console.log(
    "dataset".padEnd(44),
    "build".padEnd(9),
    "cache".padEnd(6),
    "rows p50".padStart(9),
    "chart p50".padStart(10),
    "p50".padStart(7),
    "p95".padStart(7),
    "kB/visit".padStart(9),
    "flashes".padStart(8),
    "  target (p50)",
  );
  for (const { dataset, build, m } of rows)
    for (const cache of ["cold", "warm"] as const) {
      const visits = m[cache];
      const ready = p50(visits);
      console.log(
        `${dataset} (${m.records} records)`.padEnd(44),
        build.padEnd(9),
        cache.padEnd(6),
        p50(visits, (v) => v.rows)
          .toFixed(0)
          .padStart(9),
        p50(visits, (v) => v.chart)
          .toFixed(0)
          .padStart(10),
        ready.toFixed(0).padStart(7),
        pct(
          visits.map((v) => v.ready),
          0.95,
        )
          .toFixed(0)
          .padStart(7),
        (p50(visits, (v) => v.bytes) / 1000).toFixed(1).padStart(9),
        String(visits.filter((v) => v.flash).length).padStart(8),
        `  < ${TARGET[cache]} ms ${ready < TARGET[cache] ? "met" : "NOT met"}`,
      );
    }
  console.log("\nJavaScript of the console build");
  console.log(
    "build".padEnd(9),
    "initial gzip".padStart(13),
    "brotli".padStart(10),
    "chart gzip".padStart(11),
    "brotli".padStart(10),
    "  chart chunk, preloaded?, .br/.gz copies?",
  );
  for (const build of ["baseline", "current"] as const) {
    const s = sizes[build];
    if (!s) continue;
    console.log(
      build.padEnd(9),
      kb(s.initialGzip).padStart(13),
      kb(s.initialBrotli).padStart(10),
      kb(s.chartGzip).padStart(11),
      kb(s.chartBrotli).padStart(10),
      `  ${s.chartFile}, ${s.chartInitial ? "preloaded (NOT separate)" : "separate"}, ${s.precompressed ? "precompressed" : "no copies"}`,
    );
  }
}

/** The figures `npm run bench` shows, for one dataset. */
function figures(rows: Row[], sizes: Record<Build, Sizes | null>): Figure[] {
  const current = rows.find((r) => r.build === "current")!;
  const base = rows.find((r) => r.build === "baseline");
  const out: Figure[] = [];
  for (const cache of ["warm", "cold"] as const) {
    const value = p50(current.m[cache]);
    out.push({
      id: `ready-${cache}-p50`,
      label: `rows + chart, ${cache}, p50`,
      value: Math.round(value),
      unit: "ms",
      ...(base ? { ratio: value / p50(base.m[cache]), baseline: "previous console build, same run" } : {}),
      target: { on: "value", op: "<", limit: TARGET[cache] },
    });
  }
  const bytes = p50(current.m.cold, (v) => v.bytes);
  out.push({
    id: "wire-cold",
    label: "bytes on the wire, cold visit",
    value: Math.round(bytes / 100) / 10,
    unit: "kB",
    ...(base ? { ratio: bytes / p50(base.m.cold, (v) => v.bytes), baseline: "previous console build" } : {}),
  });
  out.push({
    id: "flashes",
    label: "visits with a zero/empty flash",
    value: [...current.m.cold, ...current.m.warm].filter((v) => v.flash).length,
    unit: "visits",
    target: { on: "value", op: "<=", limit: 0 },
  });
  const cs = sizes.current;
  const bs = sizes.baseline;
  if (cs) {
    out.push({
      id: "chart-chunk-gzip",
      label: "chart chunk, gzip",
      value: Math.round(cs.chartGzip / 100) / 10,
      unit: "kB",
      ...(bs ? { ratio: cs.chartGzip / bs.chartGzip, baseline: "previous console build" } : {}),
    });
    out.push({
      id: "chart-chunk-brotli",
      label: "chart chunk, brotli",
      value: Math.round(cs.chartBrotli / 100) / 10,
      unit: "kB",
      ...(bs ? { ratio: cs.chartBrotli / bs.chartBrotli, baseline: "previous console build" } : {}),
    });
  }
  return out;
}

async function main() {
  stopAllOnExit();
  const sizes: Record<Build, Sizes | null> = {
    current: jsSizes(CONSOLE_DIR),
    baseline: BASELINE_DIR ? jsSizes(BASELINE_DIR) : null,
  };
  const builds: { build: Build; dir: string; offset: number }[] = [
    ...(BASELINE_DIR ? [{ build: "baseline" as const, dir: BASELINE_DIR, offset: 2 }] : []),
    { build: "current" as const, dir: CONSOLE_DIR, offset: 0 },
  ];
  const params = { runs: RUNS, quick: QUICK, baseline: BASELINE_DIR !== null, viewport: VIEWPORT };
  const demoResults = startResults("console", "pglite", params);
  const bigResults =
    flag("skip-1m") || QUICK
      ? null
      : startResults("console", "postgresql", { ...params, events: CYCLE_EVENTS });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const cpu = cpus();
  const header = [
    `machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, Chromium ${browser.version()}, viewport ${VIEWPORT.width}x${VIEWPORT.height}`,
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
    `current build: ${CONSOLE_DIR}${BASELINE_DIR ? `; baseline build: ${BASELINE_DIR} (measured in turn, same run)` : ""}`,
  ];
  const rows: Row[] = [];
  try {
    const dataDirs = builds.map(() => mkdtempSync(join(tmpdir(), "eval-console-bench-")));
    const demos = await Promise.all(
      builds.map((b, i) =>
        startProduct(`demo (${b.build})`, PORT + b.offset, {
          DATABASE_URL: "",
          DATA_DIR: dataDirs[i]!,
          CONSOLE_DIR: b.dir,
        }),
      ),
    );
    try {
      const measured = await measure(browser, demos);
      for (const [i, b] of builds.entries())
        rows.push({ dataset: "demo, PGlite", build: b.build, m: measured[i]! });
    } finally {
      await Promise.all(demos.map((d) => d.stop()));
      for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
    }
    demoResults.save(
      figures(
        rows.filter((r) => r.dataset === "demo, PGlite"),
        sizes,
      ),
    );

    if (bigResults) {
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      const version =
        (await admin.query<{ v: string }>("select current_setting('server_version') as v")).rows[0]?.v ?? "?";
      header.push(`PostgreSQL ${version} for the 1M cycle`);
      const exists = (await admin.query("select 1 from pg_database where datname = $1", [DB_NAME])).rowCount;
      if (!exists) await admin.query(`create database ${DB_NAME}`);
      const url = new URL(PG_URL);
      url.pathname = `/${DB_NAME}`;
      try {
        const events = eventsForCurrentCycle(CYCLE_EVENTS);
        if (exists) {
          console.log(`reusing ${DB_NAME} (seeding only what is missing)...`);
          seed(url.href, events);
          header.push(`1M cycle: database ${DB_NAME} reused (seeded by an earlier run)`);
        } else {
          console.log(
            `seeding ${events.toLocaleString("en-US")} demo events (about ${CYCLE_EVENTS.toLocaleString("en-US")} in the current cycle)...`,
          );
          const t0 = performance.now();
          seed(url.href, events);
          header.push(
            `1M cycle: ${events.toLocaleString("en-US")} demo events over three cycles, seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
          );
        }
        const bigs = await Promise.all(
          builds.map((b) =>
            startProduct(`1M (${b.build})`, PORT + 10 + b.offset, {
              DATABASE_URL: url.href,
              SEED_DEMO: "never",
              CONSOLE_DIR: b.dir,
            }),
          ),
        );
        try {
          const measured = await measure(browser, bigs);
          for (const [i, b] of builds.entries())
            rows.push({ dataset: "1M cycle, PostgreSQL", build: b.build, m: measured[i]! });
        } finally {
          await Promise.all(bigs.map((b) => b.stop()));
        }
        bigResults.save(
          figures(
            rows.filter((r) => r.dataset === "1M cycle, PostgreSQL"),
            sizes,
          ),
        );
      } finally {
        if (!flag("keep-db")) await admin.query(`drop database if exists ${DB_NAME} with (force)`);
        await admin.end();
      }
    }
  } finally {
    await browser.close();
  }
  header.push(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
  report(rows, sizes, header);
  for (const [label, summary] of profiles) printProfile(label, summary);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
