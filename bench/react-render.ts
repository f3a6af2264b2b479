// Where a page's first render goes, component by component: the served demo on a profiling build of
// the console (bench/vite.profiling.config.ts), admin@acme.test signed in, then warm visits of one
// page. A stand-in for the React DevTools hook reads every commit up to the first frame with a row:
// each component's own render time (its fiber's actualDuration less its children's), its
// instances, and for named components the time and component count of their whole subtree. The
// times are the profiling build's (about twice a production build's); compare builds side by side.
//
// Usage: npx vite build --config bench/vite.profiling.config.ts --minify false --outDir DIR
//        npx tsx bench/react-render.ts --console-dir DIR [--path /] [--runs 5] [--top 40] [--port 4820]
//          [--commits]   # also each commit's own components, largest first
import { parseArgs } from "node:util";
import { ensurePersonalApiKey, launchChromium, signInAsAdmin } from "./browser";
import { rowsProbe } from "./console-pages";
import { serveConsoleDemo } from "./served-product";

const { values: args } = parseArgs({
  options: {
    "console-dir": { type: "string", default: "dist" },
    path: { type: "string", default: "/" },
    runs: { type: "string", default: "5" },
    top: { type: "string", default: "40" },
    port: { type: "string", default: "4820" },
    commits: { type: "boolean", default: false },
  },
});
const path = args.path;
const runs = Number(args.runs);

type Commit = {
  at: number;
  fibers: number;
  own: Record<string, [number, number]>;
  tree: Record<string, [number, number]>;
};

// Runs in every document before the console: the rows' first frame, and after each commit the
// components that rendered in it. `own[name]` = [own ms, instances]; `tree[name]` = [subtree ms,
// subtree components], for components with a name (antd's anonymous forwardRefs are named after
// their nearest named parent, "?<Parent").
const PROBE = `(() => {
  window.__rows = 0; window.__commits = [];
  const named = (t) => t && (t.displayName || t.name || (t.render && (t.render.displayName || t.render.name)));
  const nameOf = (f) => {
    const t = f.type;
    if (!t) return "#" + f.tag;
    if (typeof t === "string") return "<" + t + ">";
    const n = named(t) || named(t.type);
    if (n) return n;
    if (t._context || t.Provider || t.Consumer) return "(context)";
    let p = f.return;
    while (p && !(p.type && typeof p.type !== "string" && named(p.type))) p = p.return;
    return "?<" + (p ? named(p.type) : "");
  };
  const size = (f) => { let n = 0; for (let c = f.child; c; c = c.sibling) n += 1 + size(c); return n; };
  const add = (m, k, a, b) => { const v = m[k] || (m[k] = [0, 0]); v[0] += a; v[1] += b; };
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true, renderers: new Map(), isDisabled: false,
    inject(renderer) { this.renderers.set(1, renderer); return 1; },
    onScheduleFiberRoot() {}, onPostCommitFiberRoot() {}, checkDCE() {},
    onCommitFiberRoot(_id, root) {
      const own = {}, tree = {}; let fibers = 0;
      // Every render begins at the root, so a fiber that began work in this one started at or
      // after the root's actualStartTime.
      const since = root.current.actualStartTime;
      const walk = (fiber) => {
        for (let f = fiber; f; f = f.sibling) {
          // Rendered in this commit: React's PerformedWork flag (1), on a fiber that began work in
          // this render. A subtree React skipped is the last commit's own fibers, flags and
          // durations included (they are reset only when a fiber is cloned), so the flag alone
          // counted every component of a skipped subtree again.
          if ((f.flags & 1) !== 0 && f.actualDuration > 0 && f.actualStartTime >= since) {
            let children = 0;
            for (let c = f.child; c; c = c.sibling) children += c.actualDuration || 0;
            const name = nameOf(f);
            add(own, name, Math.max(0, f.actualDuration - children), 1);
            if (!/^[?<#(]/.test(name)) add(tree, name, f.actualDuration, size(f));
            fibers++;
          }
          if (f.child) walk(f.child);
        }
      };
      walk(root.current.child);
      window.__commits.push({ at: Math.round(performance.now()), fibers, own, tree });
    },
  };
})();${rowsProbe("window.__rows = now")}`;

const product = serveConsoleDemo(args["console-dir"], Number(args.port));
const browser = await launchChromium();
const own: Record<string, [number, number]> = {};
const tree: Record<string, [number, number]> = {};
const sum = (into: Record<string, [number, number]>, from: Record<string, [number, number]>) => {
  for (const [k, [a, b]] of Object.entries(from)) {
    const v = into[k] ?? [0, 0];
    into[k] = v;
    v[0] += a / runs;
    v[1] += b / runs;
  }
};
try {
  await product.started(10 * 60_000);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript(PROBE);
  const page = await context.newPage();
  await signInAsAdmin(page, product);
  await ensurePersonalApiKey(page, product.auth);
  // One discarded visit of the page, so the measured ones are warm.
  await page.goto(`${product.api}${path}`);
  await page.waitForFunction(() => (window as unknown as { __rows: number }).__rows > 0, undefined, {
    timeout: 60_000,
  });
  for (let i = 0; i < runs; i++) {
    await page.goto(`${product.api}${path}`);
    await page.waitForFunction(() => (window as unknown as { __rows: number }).__rows > 0, undefined, {
      timeout: 60_000,
    });
    const visit = await page.evaluate(() => {
      const w = window as unknown as { __rows: number; __commits: Commit[] };
      return { rows: w.__rows, commits: w.__commits.filter((c) => c.at <= w.__rows + 1) };
    });
    const total = (c: Commit) => Object.values(c.own).reduce((s, [ms]) => s + ms, 0);
    console.log(
      `visit ${i + 1}: rows at ${Math.round(visit.rows)} ms; commits before them: ${visit.commits
        .map((c) => `at ${c.at} (${total(c).toFixed(1)} ms, ${c.fibers} components)`)
        .join(", ")}`,
    );
    for (const c of visit.commits) {
      sum(own, c.own);
      sum(tree, c.tree);
    }
    if (args.commits)
      for (const c of visit.commits)
        console.log(
          `  commit at ${c.at}: ${Object.entries(c.own)
            .sort((a, b) => b[1][0] - a[1][0])
            .slice(0, 12)
            .map(([k, [ms, n]]) => `${k} ${ms.toFixed(1)}/${n}`)
            .join(", ")}`,
        );
  }
  const top = Number(args.top);
  const rendered = Object.values(own).reduce((s, [ms]) => s + ms, 0);
  console.log(`\nrender time per visit, every commit up to the rows: ${rendered.toFixed(1)} ms`);
  console.log("\nown time   instances  component");
  for (const [k, [ms, n]] of Object.entries(own)
    .sort((a, b) => b[1][0] - a[1][0])
    .slice(0, top))
    console.log(`${ms.toFixed(2).padStart(8)} ${n.toFixed(0).padStart(10)}  ${k}`);
  console.log("\nsubtree time  components  component");
  for (const [k, [ms, n]] of Object.entries(tree)
    .sort((a, b) => b[1][0] - a[1][0])
    .slice(0, top))
    console.log(`${ms.toFixed(2).padStart(11)} ${n.toFixed(0).padStart(11)}  ${k}`);
} finally {
  await browser.close();
  product.stop();
}
