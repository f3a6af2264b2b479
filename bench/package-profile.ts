// Where a warm visit's main thread goes, package by package: the served demo on a console build
// with source maps, admin@acme.test signed in, then warm visits of one page under Chromium's
// sampling profiler (every 0.2 ms) until its rows show (and the few ms the tool takes to see
// them). Each sample's function is traced back through the build's source maps to the package it
// came from (react-dom, antd, rc-table, ...) or to the console's own folder; functions without a
// source (the browser's own, such as fetch, and the garbage collector) keep their names. Self time
// per visit, idle left out; layout forced from script counts in the function that forced it.
// It says which code a page's time is spent in before one tries to shorten it; bench/console.ts
// measures, bench/react-render.ts splits the render by component, bench/chunk-packages.ts says
// what a chunk's bytes are.
//
// Usage: npx vite build --minify false --sourcemap --outDir DIR
//        npx tsx bench/package-profile.ts --console-dir DIR [--path /] [--runs 5] [--top 40]
//          [--port 4830] [--detail rc-table]   # --detail: that package's functions, one by one
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { SourceMapConsumer } from "source-map-js";
import { ensurePersonalApiKey, launchChromium, signInAsAdmin } from "./browser";
import { rowsProbe } from "./console-pages";
import { serveConsoleDemo } from "./served-product";
import { ownerOf } from "./source-owner";

const { values: args } = parseArgs({
  options: {
    "console-dir": { type: "string", default: "dist" },
    path: { type: "string", default: "/" },
    runs: { type: "string", default: "5" },
    top: { type: "string", default: "40" },
    port: { type: "string", default: "4830" },
    detail: { type: "string" },
  },
});
const dir = args["console-dir"];
const path = args.path;
const runs = Number(args.runs);
const PROBE = `window.__rows = 0;${rowsProbe("window.__rows = now")}`;

type Frame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type Profile = { nodes: { id: number; callFrame: Frame }[]; samples: number[]; timeDeltas: number[] };

const maps = new Map<string, SourceMapConsumer | null>();
function mapOf(url: string): SourceMapConsumer | null {
  const file = join(dir, "assets", `${basename(new URL(url).pathname)}.map`);
  if (!maps.has(file))
    maps.set(file, existsSync(file) ? new SourceMapConsumer(JSON.parse(readFileSync(file, "utf8"))) : null);
  return maps.get(file) ?? null;
}

/** Where a sampled function comes from: a package or the console's folder, else its own name. */
function keyOf(f: Frame): string {
  if (!f.url) return f.functionName || "(anonymous)";
  const map = mapOf(f.url);
  if (!map || f.lineNumber < 0) return basename(new URL(f.url).pathname);
  const at = map.originalPositionFor({ line: f.lineNumber + 1, column: f.columnNumber });
  if (!at.source) return basename(new URL(f.url).pathname);
  const owner = ownerOf(at.source);
  if (owner !== args.detail) return owner;
  return `${owner} ${f.functionName || "(anonymous)"} ${at.source.split("/").slice(-2).join("/")}:${at.line}`;
}

const product = serveConsoleDemo(dir, Number(args.port));
const browser = await launchChromium();
const self = new Map<string, number>();
const rowsAt: number[] = [];
try {
  await product.started(10 * 60_000);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript(PROBE);
  const page = await context.newPage();
  const rows = async () => {
    await page.waitForFunction(() => (window as unknown as { __rows: number }).__rows > 0, undefined, {
      timeout: 60_000,
    });
    return page.evaluate(() => (window as unknown as { __rows: number }).__rows);
  };
  await signInAsAdmin(page, product);
  await ensurePersonalApiKey(page, product.auth);
  await page.goto(`${product.api}${path}`);
  await rows();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  for (let i = 0; i < runs; i++) {
    await cdp.send("Profiler.start");
    await page.goto(`${product.api}${path}`);
    rowsAt.push(await rows());
    const { profile } = (await cdp.send("Profiler.stop")) as unknown as { profile: Profile };
    const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    profile.samples.forEach((id, k) => {
      const frame = byId.get(id);
      if (!frame || frame.functionName === "(idle)" || frame.functionName === "(program)") return;
      const key = keyOf(frame);
      self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[k + 1] ?? 0) / 1000);
    });
  }
  const busy = [...self.values()].reduce((a, b) => a + b, 0) / runs;
  console.log(`${path}: ${runs} warm visits, rows at ${rowsAt.map((r) => Math.round(r)).join(", ")} ms`);
  console.log(
    `main thread busy until the rows, per visit: ${busy.toFixed(1)} ms (self time; idle left out)\n`,
  );
  console.log("   ms/visit  share  where");
  for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top)))
    console.log(
      `${(ms / runs).toFixed(1).padStart(11)}  ${((100 * ms) / runs / busy).toFixed(0).padStart(4)}%  ${key}`,
    );
} finally {
  await browser.close();
  product.stop();
}
