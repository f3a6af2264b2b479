// A timeline of console visits, for finding where a page's time goes before changing anything
// (bench/console.ts measures; this explains): the served product on the demo, admin@acme.test
// signed in on the hosted page, then each visit's rows time, every resource with its start and end,
// Chromium's long animation frames with the scripts that ran in them, and the page's own
// `performance.mark`s (add temporary ones to the console, build, and read them here).
//
// Usage: npx tsx bench/console-trace.ts [--console-dir dist] [--path /] [--runs 3] [--cold]
//   [--port 4800] [--latency MS]
//   --cold: each visit in a new browser context (no HTTP or code cache), signed in as before.
//   --latency MS: Chromium adds MS to every request that goes to the network (as bench/console.ts).
//   --commits: after each React commit, the components whose state changed in it (bench/react-commits;
//     build with --minify false for names), to find what renders again before the first paint.
import { parseArgs } from "node:util";
import type { BrowserContext } from "@playwright/test";
import { ensurePersonalApiKey, launchChromium, signInAsAdmin } from "./browser";
import { ROWS, rowsProbe } from "./console-pages";
import { addLatency } from "./network-latency";
import { REACT_COMMITS_PROBE } from "./react-commits";
import { serveConsoleDemo } from "./served-product";

const { values: args } = parseArgs({
  options: {
    "console-dir": { type: "string", default: "dist" },
    path: { type: "string", default: "/" },
    runs: { type: "string", default: "3" },
    cold: { type: "boolean", default: false },
    port: { type: "string", default: "4800" },
    latency: { type: "string", default: "0" },
    commits: { type: "boolean", default: false },
  },
});
const path = args.path;
const VIEWPORT = { width: 1440, height: 900 };

// Runs in every document: long animation frames (with script attribution) and the first frame
// with a row on screen.
const PROBE = `(() => {
  window.__trace = { rows: 0, frames: [] };
  try {
    new PerformanceObserver((list) => {
      for (const f of list.getEntries())
        window.__trace.frames.push({
          start: Math.round(f.startTime), duration: Math.round(f.duration), render: Math.round(f.renderStart),
          scripts: (f.scripts || []).map((s) => s.invokerType + " " + s.invoker.slice(0, 40) + " @" + Math.round(s.startTime) + " +" + Math.round(s.duration) + "ms"),
        });
    }).observe({ type: "long-animation-frame", buffered: true });
  } catch {}
})();${rowsProbe("window.__trace.rows = now")}`;

type Trace = {
  rows: number;
  frames: { start: number; duration: number; render: number; scripts: string[] }[];
  resources: string[];
  marks: string[];
  commits: string[];
};

async function visit(context: BrowserContext, url: string): Promise<Trace> {
  const page = context.pages()[0] ?? (await context.newPage());
  await addLatency(context, page, Number(args.latency));
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __trace: Trace }).__trace.rows > 0, undefined, {
    timeout: 60_000,
  });
  // Work right after the rows (the chart, late reads) shows too.
  await page.waitForTimeout(800);
  return page.evaluate(() => {
    const t = (window as unknown as { __trace: Trace }).__trace;
    const resources = performance.getEntriesByType("resource").map((e) => {
      const r = e as PerformanceResourceTiming;
      const name = new URL(r.name).pathname;
      return `${Math.round(r.startTime)}–${Math.round(r.responseEnd)} ${name}`;
    });
    const marks = performance.getEntriesByType("mark").map((m) => `${Math.round(m.startTime)} ${m.name}`);
    const commits = (window as unknown as { __reactCommits?: string[] }).__reactCommits ?? [];
    return { rows: Math.round(t.rows), frames: t.frames, resources, marks, commits };
  });
}

const product = serveConsoleDemo(args["console-dir"], Number(args.port));
const browser = await launchChromium();
try {
  await product.started(10 * 60_000);
  const signedIn = await browser.newContext({ viewport: VIEWPORT });
  await signedIn.addInitScript(PROBE);
  if (args.commits) await signedIn.addInitScript(REACT_COMMITS_PROBE);
  const page = await signedIn.newPage();
  await signInAsAdmin(page, product);
  await page.locator(ROWS).first().waitFor({ timeout: 60_000 });
  await ensurePersonalApiKey(page, product.auth);
  const state = await signedIn.storageState();

  for (let i = 0; i < Number(args.runs); i++) {
    let context = signedIn;
    if (args.cold) {
      context = await browser.newContext({ viewport: VIEWPORT, storageState: state });
      await context.addInitScript(PROBE);
      if (args.commits) await context.addInitScript(REACT_COMMITS_PROBE);
    }
    const t = await visit(context, `${product.api}${path}`);
    if (args.cold) await context.close();
    console.log(`\n── visit ${i + 1} (${args.cold ? "cold" : "warm"}) ${path}: rows at ${t.rows} ms`);
    for (const f of t.frames)
      console.log(`  frame ${f.start} +${f.duration} ms (render at ${f.render}): ${f.scripts.join(" | ")}`);
    for (const r of t.resources) console.log(`  ${r}`);
    for (const m of t.marks) console.log(`  mark ${m}`);
    for (const c of t.commits) console.log(`  ${c}`);
  }
} finally {
  await browser.close();
  product.stop();
}
