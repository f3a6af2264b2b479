// The server's side of a Billing & Usage visit: each call the page makes as it lands (the current
// user, the billing cycles, the workspaces, budgets and usage awaiting pricing, then the latest
// cycle's records, summary and daily series) timed alone, and all of them at once as a visit sends
// them, on the served demo (its own process, the embedded database). Floor: GET /v1/workspaces/, the
// lightest authenticated call. With --baseline-cwd, a second product served from another checkout
// (say `git worktree add /tmp/base HEAD~1`, with node_modules linked) is timed call for call in turn
// with this one, so that both see the same machine load.
//
// Usage: npx tsx bench/landing-calls.ts [--runs 25] [--baseline-cwd DIR] [--port 4960]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { type ServedProduct, serveProduct } from "./served-product";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "25" },
    "baseline-cwd": { type: "string" },
    port: { type: "string", default: "4960" },
  },
});
const RUNS = Number(args.runs);

type Build = { label: string; product: ServedProduct; token: string; paths: string[] };

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function timed(b: Build, path: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${b.product.api}${path}`, { headers: { authorization: `Bearer ${b.token}` } });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${b.label} ${path}: ${res.status}`);
  return performance.now() - t;
}

async function prepare(label: string, product: ServedProduct): Promise<Build> {
  await product.started();
  const token = await product.accessToken("admin@acme.test");
  const res = await fetch(`${product.api}/v1/accounts/organization/billingcycles`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const cycles = (await res.json()) as { billing_cycle_uuid: string; billing_cycle_start_date: string }[];
  const latest = [...cycles]
    .sort((a, b) => (a.billing_cycle_start_date < b.billing_cycle_start_date ? -1 : 1))
    .at(-1);
  const cycle = `billing_cycle_uuid=${latest?.billing_cycle_uuid}`;
  const paths = [
    "/v1/accounts/me",
    "/v1/accounts/organization/billingcycles",
    "/v1/workspaces/?show_deleted=true",
    "/v1/budgets",
    "/v1/usage/awaiting-pricing",
    `/v1/usage/records?${cycle}&page=1&page_size=10&sort=-date`,
    `/v1/usage/summary?${cycle}`,
    `/v1/usage/series?${cycle}&grouping=daily`,
  ];
  return { label, product, token, paths };
}

const port = Number(args.port);
const products = [
  serveProduct({ port, events: 30_000, label: "calls" }),
  ...(args["baseline-cwd"]
    ? [serveProduct({ port: port + 2, events: 30_000, label: "calls", cwd: args["baseline-cwd"] })]
    : []),
];
try {
  const builds = await Promise.all(products.map((p, i) => prepare(i === 0 ? "current" : "baseline", p)));
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
  const floor = "/v1/workspaces/";
  const names = [
    floor,
    ...builds[0]!.paths.map((p) => p.replace(/billing_cycle_uuid=[^&]+/, "billing_cycle_uuid=…")),
  ];
  const times = builds.map(() => new Map<string, number[]>(names.map((n) => [n, []])));
  const together = builds.map(() => [] as number[]);
  // Warm-up, then the rounds: every call of each build in turn, then the visit's burst.
  for (let round = -3; round < RUNS; round++) {
    for (const [bi, b] of builds.entries()) {
      for (const [i, path] of [floor, ...b.paths].entries()) {
        const ms = await timed(b, path);
        if (round >= 0) times[bi]!.get(names[i]!)!.push(ms);
      }
      const t = performance.now();
      await Promise.all(b.paths.map((path) => timed(b, path)));
      if (round >= 0) together[bi]!.push(performance.now() - t);
    }
  }
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
  console.log(`\nBilling & Usage's landing calls on the demo (embedded database), p50 of ${RUNS}, ms`);
  const head = ["call".padEnd(72), ...builds.map((b) => b.label.padStart(9)), "÷floor".padStart(7)];
  if (builds.length > 1) head.push("after÷before".padStart(13));
  console.log(head.join(" "));
  const row = (name: string, values: number[], floorMs: number) => {
    const cells = [
      name.padEnd(72),
      ...values.map((v) => v.toFixed(1).padStart(9)),
      (values[0]! / floorMs).toFixed(2).padStart(7),
    ];
    if (values.length > 1) cells.push((values[0]! / values[1]!).toFixed(2).padStart(13));
    console.log(cells.join(" "));
  };
  const floorMs = p50(times[0]!.get(floor)!);
  for (const name of names)
    row(
      name,
      times.map((t) => p50(t.get(name)!)),
      floorMs,
    );
  row("all eight at once (a visit's burst)", together.map(p50), floorMs);
} finally {
  for (const p of products) p.stop();
}
