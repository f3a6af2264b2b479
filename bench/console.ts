// The console in a real browser: navigation to the Billing & Usage page ("/") until its records
// table shows rows and its chart has drawn, in headless Chromium, for the demo organization on
// the embedded database and for a current billing cycle of about 1M events on PostgreSQL; and the
// JavaScript a first visit downloads (the entry chunk and its static imports) against the chart
// chunk, gzip, from dist/.
//
// Cold: a new browser context per run (empty HTTP cache, same signed-in session). Warm: one
// context, one discarded visit, then repeated visits (assets from the HTTP cache). Each figure is
// the page's own clock (performance.now(), zero at navigation start) at the first animation frame
// where both are on screen, so the time includes the session refresh, the current user, the page
// chunk, the data calls, the chart chunk and its first drawing.
//
// Usage: npx tsx bench/console.ts [--runs 10] [--events 1000000] [--skip-1m] [--keep-db]
//   DEMO_PASSWORD (default acme-demo-2026) signs in admin@acme.test on both products.
//   BENCH_PG_URL (default postgres://root@127.0.0.1:5432/postgres): the server on which the
//   database bench_console is created, seeded, and dropped at the end (kept with --keep-db, and
//   reused, seeding only what is missing, when it already exists).
//   CHROMIUM_PATH (default /usr/bin/chromium); --port P uses P, P+1 (demo) and P+10, P+11 (1M).

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { type Browser, type BrowserContext, chromium } from "@playwright/test";
import pg from "pg";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: "string" },
    events: { type: "string" },
    port: { type: "string" },
    "skip-1m": { type: "boolean" },
    "keep-db": { type: "boolean" },
  },
});
const flag = (name: "skip-1m" | "keep-db") => args[name] === true;
const option = (name: "runs" | "events" | "port", fallback: number) => {
  const n = args[name] === undefined ? fallback : Number(args[name]);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number`);
  return n;
};
const RUNS = option("runs", 10);
const CYCLE_EVENTS = option("events", 1_000_000);
const PORT = option("port", 4700);
const PASSWORD = process.env.DEMO_PASSWORD || "acme-demo-2026";
const PG_URL = process.env.BENCH_PG_URL || "postgres://root@127.0.0.1:5432/postgres";
const DB_NAME = "bench_console";
const TARGET_MS = 1000;
const TARGET_INITIAL_KB = 500;
const VIEWPORT = { width: 1440, height: 900 }; // the chart is hidden below 768 px
const TSX = "node_modules/.bin/tsx";

type Sizes = {
  initial: number;
  initialFiles: string[];
  chart: number;
  chartFile: string;
  chartInitial: boolean;
};

/** kB as Vite reports them (1000 bytes, gzip at the default level). */
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

function jsSizes(): Sizes {
  if (!existsSync("dist/index.html")) {
    console.log("dist/ is missing: building the console...");
    const r = spawnSync("npx", ["vite", "build", "--logLevel", "warn"], { stdio: "inherit" });
    if (r.status !== 0) throw new Error("vite build failed");
  }
  const html = readFileSync("dist/index.html", "utf8");
  const roots = [
    ...html.matchAll(/<script[^>]*type="module"[^>]*src="\/([^"]+)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="\/([^"]+)"/g),
  ].map((m) => m[1]!);
  // What the browser fetches before the app runs: the entry and, transitively, its static imports
  // (`import … from"./x.js"` or `import"./x.js"`; `import("./x.js")` is dynamic and left out).
  const initial = new Set<string>();
  const visit = (file: string) => {
    if (initial.has(file)) return;
    initial.add(file);
    const code = readFileSync(join("dist", file), "utf8");
    const dir = file.slice(0, file.lastIndexOf("/") + 1);
    for (const m of code.matchAll(/(?:\bfrom|\bimport)\s*"\.\/([^"]+\.js)"/g)) visit(`${dir}${m[1]}`);
  };
  for (const root of roots) visit(root);
  const gz = (file: string) => gzipSync(readFileSync(join("dist", file))).length;
  const chartFile = readdirSync("dist/assets").find((f) => /^stacked-bars-[\w-]+\.js$/.test(f));
  if (!chartFile) throw new Error("no stacked-bars chunk in dist/assets: is the chart still lazily loaded?");
  return {
    initial: [...initial].reduce((sum, f) => sum + gz(f), 0),
    initialFiles: [...initial],
    chart: gz(`assets/${chartFile}`),
    chartFile,
    chartInitial: initial.has(`assets/${chartFile}`),
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
 * chart canvas (some non-transparent pixel) are on screen.
 */
const PROBE = `(() => {
  const t = { rows: 0, chart: 0 };
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

type Visit = { rows: number; chart: number; ready: number; pager: string };

async function visit(context: BrowserContext, url: string): Promise<Visit> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${url}/`, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    () => (window as unknown as { __consoleBench?: Visit }).__consoleBench,
    undefined,
    { timeout: 60_000 },
  );
  return (await handle.jsonValue()) as Visit;
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

async function measure(browser: Browser, product: Product): Promise<Measured> {
  const storageState = await signIn(browser, product);
  const fresh = async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, storageState });
    await context.addInitScript(PROBE);
    return context;
  };
  const cold: Visit[] = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await fresh();
    cold.push(await visit(context, product.url));
    await context.close();
  }
  const context = await fresh();
  await visit(context, product.url); // fills the HTTP cache
  const warm: Visit[] = [];
  for (let i = 0; i < RUNS; i++) warm.push(await visit(context, product.url));
  await context.close();
  const records = /\(([\d,]+) total records\)/.exec(cold[0]?.pager ?? "")?.[1] ?? "?";
  return { cold, warm, records };
}

function pct(samples: readonly number[], p: number) {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * p) - 1))] ?? Number.NaN;
}

function report(rows: { name: string; m: Measured }[], sizes: Sizes, header: string[]) {
  for (const line of header) console.log(line);
  console.log(
    `\nnavigation to records rows + chart drawn on "/" (ms since navigation start), ${RUNS} runs each`,
  );
  console.log(
    "dataset".padEnd(40),
    "cache".padEnd(6),
    "rows p50".padStart(9),
    "chart p50".padStart(10),
    "p50".padStart(7),
    "p95".padStart(7),
    "  target",
  );
  for (const { name, m } of rows)
    for (const [cache, visits] of [
      ["cold", m.cold],
      ["warm", m.warm],
    ] as const) {
      const ready = visits.map((v) => v.ready);
      const p95 = pct(ready, 0.95);
      console.log(
        `${name} (${m.records} records)`.padEnd(40),
        cache.padEnd(6),
        pct(
          visits.map((v) => v.rows),
          0.5,
        )
          .toFixed(0)
          .padStart(9),
        pct(
          visits.map((v) => v.chart),
          0.5,
        )
          .toFixed(0)
          .padStart(10),
        pct(ready, 0.5).toFixed(0).padStart(7),
        p95.toFixed(0).padStart(7),
        `  < ${TARGET_MS} ms ${p95 < TARGET_MS ? "met (p95)" : "NOT met (p95)"}`,
      );
    }
  console.log("\nJavaScript from dist/ (gzip)");
  console.log(
    "initial (entry + static imports)".padEnd(40),
    kb(sizes.initial).padStart(10),
    `  target ≤ ${TARGET_INITIAL_KB} kB ${sizes.initial <= TARGET_INITIAL_KB * 1000 ? "met" : "NOT met"}`,
    `  (${sizes.initialFiles.length} file${sizes.initialFiles.length === 1 ? "" : "s"})`,
  );
  console.log(
    `chart chunk (${sizes.chartFile})`.padEnd(40),
    kb(sizes.chart).padStart(10),
    `  target separate, not preloaded: ${sizes.chartInitial ? "NOT met" : "met"}`,
  );
}

async function main() {
  stopAllOnExit();
  const sizes = jsSizes();
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
  ];
  const rows: { name: string; m: Measured }[] = [];
  try {
    const dataDir = mkdtempSync(join(tmpdir(), "eval-console-bench-"));
    const demo = await startProduct("demo", PORT, { DATABASE_URL: "", DATA_DIR: dataDir });
    try {
      rows.push({ name: "demo, PGlite", m: await measure(browser, demo) });
    } finally {
      await demo.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }

    if (!flag("skip-1m")) {
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
        const big = await startProduct("1M", PORT + 10, { DATABASE_URL: url.href, SEED_DEMO: "never" });
        try {
          rows.push({ name: "1M cycle, PostgreSQL", m: await measure(browser, big) });
        } finally {
          await big.stop();
        }
      } finally {
        if (!flag("keep-db")) await admin.query(`drop database if exists ${DB_NAME} with (force)`);
        await admin.end();
      }
    }
  } finally {
    await browser.close();
  }
  report(rows, sizes, header);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
