// The console in a real browser: navigation to the Billing & Usage page ("/") until its records
// table shows rows and its chart has drawn, and to the other list pages (Workspaces, Users, API
// Keys, Eval Runs, Audit Log) until their rows show, in headless Chromium, each beside its floor;
// for the demo organization on the embedded database and for a current billing cycle of about 1M
// events on PostgreSQL (Billing & Usage only); the bytes that cross the wire on a first visit; the
// layout shift of a Billing & Usage visit; and the JavaScript sizes (the entry chunk and its static
// imports, and the chart chunk) and index.html's stylesheets, gzip and brotli.
//
// The floor (bench/console-floor, built by this script into a copy of the build it serves, never
// part of the console's own build) is the least a page of the same rows must do from the same
// server: the session refresh, the page's one list call, an Ant Design table in the console's
// theme. Each page's rows are reported with their ratio to its floor, measured in the same minutes.
//
// With --baseline-dir, a second console build (the previous commit's, built to another folder) is
// served by a second product on the same data and measured in the same run, visit for visit in
// turn with the current build, so that both see the same machine load.
//
// The header also gives the machine's speed at the start and the end of the run
// (bench/cpu-reference.ts): a fixed piece of work timed in a fresh Chromium of the same build,
// which tells a slower machine from a slower console when runs of different days are compared.
//
// Cold: a new browser context per run (empty HTTP cache, same signed-in session). Warm: one
// context, one discarded visit per page, then repeated visits (assets from the HTTP cache). Each
// figure is the page's own clock (performance.now(), zero at navigation start) at the first
// animation frame where the rows (and on Billing & Usage the drawn chart) are on screen, so the
// time includes the session refresh, the current user, the page chunk, the data calls, the chart
// chunk and its first drawing. A visit that showed an empty table, "0 total records" or an empty
// chart before its rows counts as a flash. Layout shift: the sum of the visit's layout-shift
// entries (no input), half a second after rows and chart are on screen.
//
// Usage: npx tsx bench/console.ts [--runs 10] [--events 1000000] [--skip-1m] [--keep-db] [--quick]
//          [--console-dir dist] [--baseline-dir DIR] [--baseline-cwd DIR] [--port 4700] [--profile]
//          [--pages a,b] [--latency MS]
//   --quick: 3 runs, demo only (the `npm run bench` summary's size).
//   --pages: a subset of billing,workspaces,users,api-keys,eval-runs,audit-log (default: all).
//   --latency MS: Chromium adds MS to every request that goes to the network, as over a real
//   connection (DevTools' network emulation), so that a page's round trips count as they would.
//   --profile: after the measured visits, one warm and one cold visit of the current build's
//   Billing & Usage under Chromium's CPU profiler, printed as self time per script and function.
//   --console-dir: the build to measure (built with `vite build` when it has no index.html).
//   --baseline-dir: a build to measure side by side (e.g. `git worktree add /tmp/base HEAD~1`,
//   then `npx vite build --outDir DIR` in it); its folder is served as it is, so a build without
//   .br/.gz copies goes out uncompressed, as before the build made them.
//   --baseline-cwd: the baseline served by the server of another checkout (e.g. a worktree of the
//   previous commit, with node_modules linked), with the baseline build or, without
//   --baseline-dir, the current one: a server change measured side by side.
//   DEMO_PASSWORD (default acme-demo-2026) signs in admin@acme.test on both products.
//   BENCH_PG_URL (default postgres://root@127.0.0.1:5432/postgres): the server on which the
//   database bench_console is created, seeded, and dropped at the end (kept with --keep-db, and
//   reused, seeding only what is missing, when it already exists).
//   CHROMIUM_PATH (default /usr/bin/chromium); --port P uses P, P+1 (demo), P+2, P+3 (baseline
//   demo), P+10, P+11 (1M) and P+12, P+13 (baseline 1M).

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Browser, BrowserContext } from "@playwright/test";
import react from "@vitejs/plugin-react";
import pg from "pg";
import { build } from "vite";
import { precompress } from "../scripts/precompress";
import { ensurePersonalApiKey, launchChromium, signInAsAdmin } from "./browser";
import { PAGES, type PageSpec, ROWS, ROWS_SELECTOR_IN_PAGE } from "./console-pages";
import { type ProfileSummary, printProfile, profileVisit } from "./console-profile";
import { cpuReference } from "./cpu-reference";
import { addLatency } from "./network-latency";
import { type Figure, startResults } from "./results";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: "string" },
    events: { type: "string" },
    port: { type: "string" },
    pages: { type: "string" },
    "console-dir": { type: "string" },
    "baseline-dir": { type: "string" },
    "baseline-cwd": { type: "string" },
    quick: { type: "boolean" },
    "skip-1m": { type: "boolean" },
    "keep-db": { type: "boolean" },
    profile: { type: "boolean" },
    latency: { type: "string" },
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
/** --latency: milliseconds Chromium adds to every request (0: loopback as it is). */
const LATENCY = args.latency === undefined ? 0 : Number(args.latency);
if (!Number.isFinite(LATENCY) || LATENCY < 0) throw new Error("--latency needs a number of milliseconds");
const CYCLE_EVENTS = option("events", 1_000_000);
const PORT = option("port", 4700);
const CONSOLE_DIR = resolve(args["console-dir"] ?? "dist");
const BASELINE_DIR = args["baseline-dir"] ? resolve(args["baseline-dir"]) : null;
const BASELINE_CWD = args["baseline-cwd"] ? resolve(args["baseline-cwd"]) : null;
const PASSWORD = process.env.DEMO_PASSWORD || "acme-demo-2026";
const PG_URL = process.env.BENCH_PG_URL || "postgres://root@127.0.0.1:5432/postgres";
const DB_NAME = "bench_console";
/** The issue's targets (issue 25), p50: a page's rows, warm and cold, within a factor of its floor;
 * the Billing & Usage chart; its layout shift ("good" in Chromium's terms). */
const TARGET = { rows: { warm: 1000, cold: 1300 }, floorRatio: 1.5, chart: 1500, layoutShift: 0.1 };
const VIEWPORT = { width: 1440, height: 900 }; // the chart is hidden below 768 px
const TSX = "node_modules/.bin/tsx";

const SELECTED = args.pages ? args.pages.split(",").filter(Boolean) : PAGES.map((p) => p.key);
for (const key of SELECTED)
  if (!PAGES.some((p) => p.key === key)) throw new Error(`--pages: no page "${key}"`);
const pagesOf = (keys: string[]) => PAGES.filter((p) => keys.includes(p.key));

type Sizes = {
  initialGzip: number;
  initialBrotli: number;
  /** index.html's stylesheets (antd's static styles), which hold the entry script back until loaded. */
  cssGzip: number;
  cssBrotli: number;
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
  const css = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="\/([^"]+)"/g)].map((m) => m[1]!);
  const chartFile = readdirSync(join(dir, "assets")).find((f) => /^stacked-bars-[\w-]+\.js$/.test(f));
  if (!chartFile)
    throw new Error(`no stacked-bars chunk in ${dir}/assets: is the chart still lazily loaded?`);
  const sum = (f: (file: string) => number) => [...initial].reduce((total, file) => total + f(file), 0);
  return {
    initialGzip: sum(gz),
    initialBrotli: sum(br),
    cssGzip: css.reduce((total, file) => total + gz(file), 0),
    cssBrotli: css.reduce((total, file) => total + br(file), 0),
    initialFiles: [...initial],
    chartGzip: gz(`assets/${chartFile}`),
    chartBrotli: br(`assets/${chartFile}`),
    chartFile,
    chartInitial: initial.has(`assets/${chartFile}`),
    precompressed: existsSync(join(dir, `assets/${chartFile}.br`)),
  };
}

/**
 * A copy of the console build `dir` with the floor page added (`/floor.html`, its script under
 * `/assets/` as the console's are, with the same brotli and gzip copies), so the product serves
 * both with the same caching and compression. The floor is built from bench/console-floor here,
 * with the same React and antd as the console; the console's own build never contains it.
 */
async function withFloor(dir: string): Promise<string> {
  const served = mkdtempSync(join(tmpdir(), "eval-console-bench-served-"));
  cpSync(dir, served, { recursive: true });
  const out = mkdtempSync(join(tmpdir(), "eval-console-bench-floor-"));
  await build({
    configFile: false,
    root: resolve("bench/console-floor"),
    logLevel: "warn",
    plugins: [react(), precompress()],
    build: {
      outDir: out,
      emptyOutDir: true,
      chunkSizeWarningLimit: 1600,
      rollupOptions: {
        input: resolve("bench/console-floor/floor.html"),
        output: { entryFileNames: "assets/floor-[hash].js", chunkFileNames: "assets/floor-[name]-[hash].js" },
      },
    },
  });
  cpSync(out, served, { recursive: true });
  rmSync(out, { recursive: true, force: true });
  if (!existsSync(join(served, "floor.html"))) throw new Error("the floor build wrote no floor.html");
  return served;
}

type Product = { url: string; authUrl: string; stop: () => Promise<void> };
const children = new Set<ChildProcess>();

async function startProduct(
  name: string,
  port: number,
  env: Record<string, string>,
  cwd?: string,
): Promise<Product> {
  const child = spawn(resolve(TSX), ["server/main.ts", "serve"], {
    ...(cwd ? { cwd } : {}),
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
 * Runs in every document: on each animation frame, notes when the first row (a table row, or on
 * the Workspaces page a card) and, on "/", a drawn chart canvas (some non-transparent pixel) are on
 * screen, and whether, before the rows, the page showed an empty table, "0 total records" or an
 * empty chart (a flash of a wrong answer); and sums the layout shifts (not after input).
 */
const PROBE = `(() => {
  const t = { rows: 0, chart: 0, flash: "" };
  window.__benchLayoutShift = 0;
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) window.__benchLayoutShift += e.value;
    }).observe({ type: "layout-shift", buffered: true });
  } catch {}
  const wantsChart = location.pathname === "/";
  const rowSelector = ${ROWS_SELECTOR_IN_PAGE};
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
    if (!t.rows && document.querySelector(rowSelector)) t.rows = now;
    if (!t.rows && !t.flash) {
      const pager = document.querySelector('[data-testid="records-pagination"]');
      // Another table's answered empty state (the budgets' Open Reservations, often empty) is no
      // flash of the page's rows.
      const empty = [...document.querySelectorAll(".ant-table-tbody .ant-empty")];
      if (empty.some((e) => !e.closest('[data-testid="open-reservations"]'))) t.flash = "empty table";
      else if (pager && /\\(0 total records\\)/.test(pager.textContent || "")) t.flash = "0 total records";
      else if (document.querySelector('[data-testid="usage-chart"] .ant-empty')) t.flash = "empty chart";
    }
    if (wantsChart && !t.chart) {
      const c = document.querySelector('[data-testid="usage-chart-canvas"] canvas');
      if (c && c.width > 0 && drawn(c)) t.chart = now;
    }
    if (t.rows && (t.chart || !wantsChart)) {
      const pager = document.querySelector('[data-testid="records-pagination"]');
      window.__consoleBench = { ...t, ready: Math.max(t.rows, t.chart), pager: pager ? pager.textContent : "" };
      return;
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;

type Visit = {
  rows: number;
  chart: number;
  ready: number;
  pager: string;
  flash: string;
  bytes: number;
  layoutShift: number;
};

/** One navigation to `url`, with the bytes its responses took on the wire (headers and bodies). */
async function visit(context: BrowserContext, url: string): Promise<Visit> {
  const page = context.pages()[0] ?? (await context.newPage());
  await addLatency(context, page, LATENCY);
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
  const errors: string[] = [];
  const noteError = (m: import("@playwright/test").ConsoleMessage) => {
    if (m.type() === "error") errors.push(m.text());
  };
  page.on("requestfinished", count);
  page.on("console", noteError);
  try {
    await page.goto(url, { waitUntil: "commit" });
    const handle = await page
      .waitForFunction(() => (window as unknown as { __consoleBench?: Visit }).__consoleBench, undefined, {
        timeout: 60_000,
      })
      .catch((e: unknown) => {
        throw new Error(`${url}: no rows in 60 s (${String(e)}); console errors: ${errors.join(" | ")}`);
      });
    const result = (await handle.jsonValue()) as Visit;
    // Shifts right after the rows (the chart's card growing, a late banner) count too.
    await page.waitForTimeout(500);
    const layoutShift = await page.evaluate(
      () => (window as unknown as { __benchLayoutShift?: number }).__benchLayoutShift ?? 0,
    );
    await Promise.all(pending);
    return { ...result, bytes, layoutShift };
  } finally {
    page.off("requestfinished", count);
    page.off("console", noteError);
  }
}

/**
 * Signs admin@acme.test in on the hosted login page, with a personal API key for the API Keys page
 * to list; returns the session for new contexts.
 */
async function signIn(browser: Browser, product: Product) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  await signInAsAdmin(page, { api: product.url, auth: product.authUrl, password: PASSWORD });
  await page.locator(ROWS).first().waitFor({ timeout: 60_000 });
  await ensurePersonalApiKey(page, product.authUrl);
  const state = await context.storageState();
  await context.close();
  return state;
}

/** A page's visits (cold and warm) and those of its floor. */
type PageVisits = { cold: Visit[]; warm: Visit[] };
type Measured = { pages: Map<string, PageVisits>; floors: Map<string, PageVisits>; records: string };
/** --profile: CPU profiles of the current build's visits, printed after the figures. */
const profiles: [string, ProfileSummary][] = [];

const floorUrl = (product: Product, page: PageSpec) =>
  `${product.url}/floor.html?${new URLSearchParams({ auth: product.authUrl, call: page.floor })}`;

/**
 * Measures each page of each product (one per console build) and, on the current build's product
 * (the last), each page's floor, in turn, visit by visit: cold visits, then warm ones, so that a
 * burst of load on the shared machine falls on all of them alike.
 */
async function measure(browser: Browser, products: Product[], pages: PageSpec[]): Promise<Measured[]> {
  const sessions = await Promise.all(products.map((p) => signIn(browser, p)));
  const fresh = async (i: number) => {
    const context = await browser.newContext({ viewport: VIEWPORT, storageState: sessions[i] });
    await context.addInitScript(PROBE);
    return context;
  };
  const current = products.length - 1;
  const empty = () => new Map(pages.map((p) => [p.key, { cold: [], warm: [] } as PageVisits]));
  const results: Measured[] = products.map(() => ({ pages: empty(), floors: empty(), records: "?" }));
  // Every visit of a round: the floor, then the page on each build, the builds in turn first: the
  // visit right after another one on the same machine is not measured like the first (identical
  // builds came 25-60 ms apart, always the same one ahead, when their order never changed).
  const roundOf = (run: number) =>
    pages.flatMap((page) => {
      const builds = products.map((_, i) => ({ i, page, floor: false }));
      return [{ i: current, page, floor: true }, ...(run % 2 ? builds.reverse() : builds)];
    });
  const round = roundOf(0);
  const urlOf = (v: (typeof round)[number]) =>
    v.floor ? floorUrl(products[v.i]!, v.page) : `${products[v.i]!.url}${v.page.path}`;
  const into = (v: (typeof round)[number]) =>
    (v.floor ? results[v.i]!.floors : results[v.i]!.pages).get(v.page.key)!;
  for (let run = 0; run < RUNS; run++)
    for (const v of roundOf(run)) {
      const context = await fresh(v.i);
      into(v).cold.push(await visit(context, urlOf(v)));
      await context.close();
    }
  // Warm: one tab per build and one for the floor, each going back to the same page visit after
  // visit. When the floor shared the current build's tab, that build's every visit came from the
  // floor's page while the baseline's came from its own, and identical builds measured 12-60 ms apart
  // on the same visits (bench/README.md, "An order bias in the warm visits").
  const contexts = await Promise.all(products.map((_, i) => fresh(i)));
  const floorContext = await fresh(current);
  const tabOf = (v: (typeof round)[number]) => (v.floor ? floorContext : contexts[v.i]!);
  for (const v of round) await visit(tabOf(v), urlOf(v)); // fills the HTTP cache
  for (let run = 0; run < RUNS; run++)
    for (const v of roundOf(run)) into(v).warm.push(await visit(tabOf(v), urlOf(v)));
  const billing = pages.find((p) => p.chart);
  if (flag("profile") && billing) {
    // The current build's Billing & Usage: one warm and one cold visit, profiled.
    const url = `${products[current]!.url}${billing.path}`;
    const warm = await profileVisit(contexts[current]!, () => visit(contexts[current]!, url));
    profiles.push([`warm visit (rows + chart at ${warm.result.ready.toFixed(0)} ms)`, warm.summary]);
    const context = await fresh(current);
    const cold = await profileVisit(context, () => visit(context, url));
    profiles.push([`cold visit (rows + chart at ${cold.result.ready.toFixed(0)} ms)`, cold.summary]);
    await context.close();
  }
  await Promise.all([...contexts, floorContext].map((c) => c.close()));
  for (const r of results)
    r.records = /\(([\d,]+) total records\)/.exec(r.pages.get("billing")?.cold[0]?.pager ?? "")?.[1] ?? "?";
  return results;
}

function pct(samples: readonly number[], p: number) {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * p) - 1))] ?? Number.NaN;
}

type Build = "current" | "baseline";
type Row = { dataset: string; build: Build; m: Measured };
const CACHES = ["warm", "cold"] as const;

const p50 = (visits: Visit[], pick: (v: Visit) => number = (v) => v.ready) => pct(visits.map(pick), 0.5);
const rowsP50 = (visits: Visit[]) => p50(visits, (v) => v.rows);
const met = (ok: boolean) => (ok ? "met" : "MISSED");

function report(rows: Row[], sizes: Record<Build, Sizes | null>, header: string[]) {
  for (const line of header) console.log(line);
  console.log(`\nnavigation to a page's rows (ms since navigation start, p50), ${RUNS} runs each`);
  console.log(
    "dataset, page".padEnd(40),
    "build".padEnd(9),
    "cache".padEnd(6),
    "rows".padStart(7),
    "floor".padStart(7),
    "÷floor".padStart(7),
    "chart".padStart(7),
    "ready p95".padStart(10),
    "kB/visit".padStart(9),
    "shift".padStart(6),
    "flash".padStart(6),
    "  targets: rows, ÷floor (chart)",
  );
  for (const { dataset, build, m } of rows)
    for (const page of PAGES) {
      const visits = m.pages.get(page.key);
      if (!visits) continue;
      const floor = rows.find((r) => r.dataset === dataset && r.build === "current")?.m.floors.get(page.key);
      for (const cache of CACHES) {
        const v = visits[cache];
        const rowsMs = rowsP50(v);
        const floorMs = floor ? rowsP50(floor[cache]) : Number.NaN;
        const chart = page.chart ? p50(v, (x) => x.chart) : Number.NaN;
        const name = page.chart
          ? `${dataset}, ${page.label} (${m.records} records)`
          : `${dataset}, ${page.label}`;
        console.log(
          name.padEnd(40),
          build.padEnd(9),
          cache.padEnd(6),
          rowsMs.toFixed(0).padStart(7),
          floorMs.toFixed(0).padStart(7),
          (rowsMs / floorMs).toFixed(2).padStart(7),
          (page.chart ? chart.toFixed(0) : "").padStart(7),
          pct(
            v.map((x) => x.ready),
            0.95,
          )
            .toFixed(0)
            .padStart(10),
          (p50(v, (x) => x.bytes) / 1000).toFixed(1).padStart(9),
          p50(v, (x) => x.layoutShift)
            .toFixed(3)
            .padStart(6),
          String(v.filter((x) => x.flash).length).padStart(6),
          `  < ${TARGET.rows[cache]} ms ${met(rowsMs < TARGET.rows[cache])}, ≤ ${TARGET.floorRatio}× ${met(rowsMs / floorMs <= TARGET.floorRatio)}` +
            (page.chart ? ` (< ${TARGET.chart} ms ${met(chart < TARGET.chart)})` : ""),
        );
      }
    }
  console.log("\nJavaScript of the console build");
  console.log(
    "build".padEnd(9),
    "initial gzip".padStart(13),
    "brotli".padStart(10),
    "chart gzip".padStart(11),
    "brotli".padStart(10),
    "css gzip".padStart(9),
    "brotli".padStart(8),
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
      kb(s.cssGzip).padStart(9),
      kb(s.cssBrotli).padStart(8),
      `  ${s.chartFile}, ${s.chartInitial ? "preloaded (NOT separate)" : "separate"}, ${s.precompressed ? "precompressed" : "no copies"}`,
    );
  }
}

/** The figures `npm run bench` shows, for one dataset: per page and cache, the rows' p50 against
 * its time target and against its floor; Billing & Usage's chart, layout shift, bytes and sizes. */
function figures(rows: Row[], sizes: Record<Build, Sizes | null>): Figure[] {
  const current = rows.find((r) => r.build === "current")!;
  const base = rows.find((r) => r.build === "baseline");
  const out: Figure[] = [];
  const floorBaseline = "its floor page, same run";
  for (const page of PAGES) {
    const visits = current.m.pages.get(page.key);
    const floor = current.m.floors.get(page.key);
    if (!visits || !floor) continue;
    for (const cache of CACHES) {
      const value = rowsP50(visits[cache]);
      const ratio = value / rowsP50(floor[cache]);
      const before = base?.m.pages.get(page.key);
      out.push({
        id: `${page.key}-rows-${cache}-p50`,
        label: `${page.label} rows, ${cache}, p50`,
        value: Math.round(value),
        unit: "ms",
        ratio,
        baseline: floorBaseline,
        target: { on: "value", op: "<", limit: TARGET.rows[cache] },
      });
      out.push({
        id: `${page.key}-rows-${cache}-floor`,
        label: `${page.label} rows, ${cache}, ÷ floor`,
        value: Math.round(value),
        unit: "ms",
        ratio,
        baseline: floorBaseline,
        target: { on: "ratio", op: "<=", limit: TARGET.floorRatio },
      });
      if (before) {
        const b = rowsP50(before[cache]);
        out.push({
          id: `${page.key}-rows-${cache}-p50-baseline`,
          label: `${page.label} rows, ${cache} (baseline)`,
          value: Math.round(b),
          unit: "ms",
          ratio: b / rowsP50(floor[cache]),
          baseline: floorBaseline,
        });
      }
      out.push({
        id: `${page.key}-floor-${cache}-p50`,
        label: `${page.label} floor, ${cache}, p50`,
        value: Math.round(rowsP50(floor[cache])),
        unit: "ms",
      });
      if (page.chart) {
        const chart = p50(visits[cache], (v) => v.chart);
        out.push({
          id: `${page.key}-chart-${cache}-p50`,
          label: `${page.label} chart, ${cache}, p50`,
          value: Math.round(chart),
          unit: "ms",
          ...(before
            ? { ratio: chart / p50(before[cache], (v) => v.chart), baseline: "previous build" }
            : {}),
          target: { on: "value", op: "<", limit: TARGET.chart },
        });
      }
    }
    if (page.chart) {
      const all = [...visits.cold, ...visits.warm];
      out.push({
        id: `${page.key}-layout-shift-max`,
        label: `${page.label} layout shift, worst visit`,
        value: Math.round(Math.max(...all.map((v) => v.layoutShift)) * 1000) / 1000,
        unit: "",
        target: { on: "value", op: "<", limit: TARGET.layoutShift },
      });
      const bytes = p50(visits.cold, (v) => v.bytes);
      const before = base?.m.pages.get(page.key);
      out.push({
        id: "wire-cold",
        label: "bytes on the wire, cold visit",
        value: Math.round(bytes / 100) / 10,
        unit: "kB",
        ...(before
          ? { ratio: bytes / p50(before.cold, (v) => v.bytes), baseline: "previous console build" }
          : {}),
      });
      out.push({
        id: "flashes",
        label: "visits with a zero/empty flash",
        value: all.filter((v) => v.flash).length,
        unit: "visits",
        target: { on: "value", op: "<=", limit: 0 },
      });
    }
  }
  const cs = sizes.current;
  const bs = sizes.baseline;
  if (cs) {
    out.push({
      id: "initial-gzip",
      label: "entry chunk + static imports, gzip",
      value: Math.round(cs.initialGzip / 100) / 10,
      unit: "kB",
      ...(bs ? { ratio: cs.initialGzip / bs.initialGzip, baseline: "previous console build" } : {}),
    });
    out.push({
      id: "stylesheet-brotli",
      label: "index.html's stylesheets, brotli",
      value: Math.round(cs.cssBrotli / 100) / 10,
      unit: "kB",
      ...(bs?.cssBrotli ? { ratio: cs.cssBrotli / bs.cssBrotli, baseline: "previous console build" } : {}),
    });
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
  // The current build is served with the floor page beside it (a copy, removed at the end).
  const served = await withFloor(CONSOLE_DIR);
  const builds: { build: Build; dir: string; offset: number; cwd?: string }[] = [
    ...(BASELINE_DIR || BASELINE_CWD
      ? [
          {
            build: "baseline" as const,
            dir: BASELINE_DIR ?? served,
            offset: 2,
            ...(BASELINE_CWD ? { cwd: BASELINE_CWD } : {}),
          },
        ]
      : []),
    { build: "current" as const, dir: served, offset: 0 },
  ];
  const params = {
    runs: RUNS,
    quick: QUICK,
    baseline: BASELINE_DIR !== null || BASELINE_CWD !== null,
    viewport: VIEWPORT,
    pages: SELECTED,
  };
  const demoResults = startResults("console", "pglite", params);
  const bigResults =
    flag("skip-1m") || QUICK || !SELECTED.includes("billing")
      ? null
      : startResults("console", "postgresql", { ...params, pages: ["billing"], events: CYCLE_EVENTS });
  const browser = await launchChromium();
  const speed = (ms: number) =>
    `${ms.toFixed(0)} ms (bench/cpu-reference.ts: fixed script, DOM and layout in this Chromium, p50 of 7)`;
  const speedAtStart = `machine speed at start: ${speed(await cpuReference())}`;
  const cpu = cpus();
  const header = [
    `machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, Chromium ${browser.version()}, viewport ${VIEWPORT.width}x${VIEWPORT.height}`,
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
    ...(LATENCY > 0 ? [`network: ${LATENCY} ms added to every request (Chromium's network emulation)`] : []),
    `current build: ${CONSOLE_DIR}${BASELINE_DIR ? `; baseline build: ${BASELINE_DIR} (measured in turn, same run)` : ""}`,
    ...(BASELINE_CWD
      ? [`baseline served by the server of ${BASELINE_CWD} (measured in turn, same run)`]
      : []),
    speedAtStart,
  ];
  const notes = [speedAtStart];
  const rows: Row[] = [];
  try {
    const dataDirs = builds.map(() => mkdtempSync(join(tmpdir(), "eval-console-bench-")));
    const demos = await Promise.all(
      builds.map((b, i) =>
        startProduct(
          `demo (${b.build})`,
          PORT + b.offset,
          { DATABASE_URL: "", DATA_DIR: dataDirs[i]!, CONSOLE_DIR: b.dir },
          b.cwd,
        ),
      ),
    );
    try {
      const measured = await measure(browser, demos, pagesOf(SELECTED));
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
      notes,
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
            startProduct(
              `1M (${b.build})`,
              PORT + 10 + b.offset,
              { DATABASE_URL: url.href, SEED_DEMO: "never", CONSOLE_DIR: b.dir },
              b.cwd,
            ),
          ),
        );
        try {
          const measured = await measure(browser, bigs, pagesOf(["billing"]));
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
          notes,
        );
      } finally {
        if (!flag("keep-db")) await admin.query(`drop database if exists ${DB_NAME} with (force)`);
        await admin.end();
      }
    }
    header.push(`machine speed at end: ${speed(await cpuReference())}`);
  } finally {
    await browser.close();
    rmSync(served, { recursive: true, force: true });
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
