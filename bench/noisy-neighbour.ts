// Does one organization slow down another? The served product (its own process, as `npm start`
// runs it) with two tenants:
// - the noisy one (the demo organization, with its usage) points ten webhook endpoints at
//   receivers that hang for 30 s or answer 500, calls their `test` over and over, floods
//   ingestion with an ingestion key, and runs two hourly CSV reports and a pathological records
//   search without pause — a hostile client: refusals (429) are retried at once;
// - the quiet one (a new organization, as any signed-in user can make) reads its dashboard
//   (usage summary and series), its budgets list, and sends itself webhook test deliveries.
// The quiet tenant's calls are timed first on the idle server, then under the noise. Goals
// (issue: one tenant never slows another): its p95 within 2× of idle, its test delivery in 5 s.
//
// Usage: npx tsx bench/noisy-neighbour.ts [--events 20000] [--probes 100] [--deliveries 5]
//        [--port 3480] [--postgres]   (--postgres: DATABASE_URL's server, else the embedded one)
//        [--noise webhooks,ingest,reads]   (the kinds of noise; all by default)
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { type Figure, startResults } from "./results";
import { describeCounts, loop, probe, quantile, serveProduct } from "./served-product";

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    events: { type: "string", default: "20000" },
    probes: { type: "string", default: "100" },
    deliveries: { type: "string", default: "5" },
    port: { type: "string", default: "3480" },
    postgres: { type: "boolean", default: false },
    noise: { type: "string", default: "webhooks,ingest,reads" },
  },
});
const EVENTS = Number(flags.events);
const PROBES = Number(flags.probes);
const DELIVERIES = Number(flags.deliveries);
const postgres = flags.postgres === true;
/** Which kinds of noise run (all by default; fewer to see what each costs the quiet tenant). */
const NOISE = new Set(String(flags.noise).split(","));
const times = (kind: string, n: number) => (NOISE.has(kind) ? Array.from({ length: n }, (_, i) => i) : []);
if (postgres && !process.env.DATABASE_URL) throw new Error("--postgres needs DATABASE_URL");

const served = serveProduct({
  port: Number(flags.port),
  events: EVENTS,
  postgres,
  label: "noisy",
  env: {
    // Receivers on this machine; failures retried soon, so retries are part of the noise.
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_RETRY_BASE_SECONDS: "1",
    // The quiet tenant's probes are many calls of one credential; the per-credential API limit
    // is not what is measured here. Ingestion and heavy-read limits stay at their defaults.
    API_RATE_LIMIT_PER_CREDENTIAL: "0",
    API_RATE_LIMIT_PER_ORG: "0",
  },
});
const API = served.api;

/** Receivers: /slow hangs 30 s, /fail answers 500, /quiet answers at once and notes the arrival. */
const arrivals: ((t: number) => void)[] = [];
const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
  req.resume();
  req.on("end", () => {
    if (req.url?.startsWith("/slow")) setTimeout(() => res.end("late"), 30_000).unref();
    else if (req.url?.startsWith("/fail")) {
      res.statusCode = 500;
      res.end("down");
    } else {
      arrivals.shift()?.(performance.now());
      res.end("ok");
    }
  });
});

async function call<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

type Endpoint = { endpoint_uuid: string };
const endpoint = (token: string, url: string) =>
  call<Endpoint>(token, "POST", "/v1/webhook-endpoints", { url, events: ["budget.alert.triggered"] });

/** Sends a test delivery to the quiet receiver `n` times: ms from the call to its arrival. */
async function testDeliveries(token: string, endpointUuid: string, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const arrived = new Promise<number>((resolve) => arrivals.push(resolve));
    const t = performance.now();
    const res = await fetch(`${API}/v1/webhook-endpoints/${endpointUuid}/test`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`quiet test delivery: ${res.status}`);
    const timeout = new Promise<number>((r) => setTimeout(() => r(Number.NaN), 120_000).unref());
    const at = await Promise.race([arrived, timeout]);
    if (Number.isNaN(at)) throw new Error("the quiet tenant's test delivery did not arrive in 120 s");
    times.push(at - t);
    await new Promise((r) => setTimeout(r, 200));
  }
  return times;
}

let seq = 0;
/** A batch of 100 priced events (the demo's price list covers generation/safety). */
const usageBatch = () =>
  JSON.stringify({
    events: Array.from({ length: 100 }, () => ({
      event_id: `noisy-${process.pid}-${seq++}`,
      occurred_at: new Date().toISOString(),
      operation: "generation",
      eval_type: "safety",
    })),
  });

async function main() {
  const results = startResults("noisy-neighbour", postgres ? "postgresql" : "pglite", {
    noise: [...NOISE].join(","),
    events: EVENTS,
    probes: PROBES,
    deliveries: DELIVERIES,
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  await served.started();

  const noisy = await served.accessToken("admin@acme.test");
  const quiet = await served.newOrganization("newcomer@acme.test", `Quiet Lab ${Date.now()}`);
  const bearer = { authorization: `Bearer ${quiet.token}` };
  const quietHook = await endpoint(quiet.token, `${hook}/quiet`);
  const noisyHooks: Endpoint[] = [];
  for (let i = 0; i < 10; i++)
    noisyHooks.push(await endpoint(noisy, `${hook}/${i % 2 ? "fail" : "slow"}/${i}`));
  const ingestKey = served.ingestKey("Acme AI", "noisy flood");

  const quietCalls = {
    summary: () => probe(`${API}/v1/usage/summary`, PROBES, bearer),
    series: () => probe(`${API}/v1/usage/series`, PROBES, bearer),
    budgets: () => probe(`${API}/v1/budgets`, PROBES, bearer),
    delivery: () => testDeliveries(quiet.token, quietHook.endpoint_uuid, DELIVERIES),
  };
  type Name = keyof typeof quietCalls;
  const measure = async (phase: string) => {
    const out = {} as Record<Name, number[]>;
    for (const name of Object.keys(quietCalls) as Name[]) {
      out[name] = await quietCalls[name]();
      console.error(`${phase}: ${name} p95 ${quantile(out[name], 0.95).toFixed(1)} ms`);
    }
    return out;
  };
  await quietCalls.summary(); // warm-up
  const idle = await measure("idle");

  // The noise: webhook tests on slow and failing receivers, an ingestion flood, heavy reads.
  // Requests carry no signal (undici keeps one listener per request on a shared signal): the
  // loops stop after the call in flight, a report at most READ_TIMEOUT_SECONDS later.
  const abort = new AbortController();
  const counts = {
    tests: new Map<number, number>(),
    ingest: new Map<number, number>(),
    reads: new Map<number, number>(),
  };
  const since = new Date(Date.now() - 40 * 86_400_000).toISOString();
  const report = `${API}/v1/usage/report?bucket_width=1h&starting_at=${encodeURIComponent(since)}&group_by=${encodeURIComponent("workspace,eval_type,operation,modality,eval_run,created_by,api_key")}`;
  const search = `${API}/v1/usage/records?search=${encodeURIComponent("%".repeat(200))}&page_size=500`;
  const noisyAuth = { authorization: `Bearer ${noisy}` };
  let next = 0;
  const noise = [
    ...times("webhooks", 3).map(() =>
      loop(
        () =>
          fetch(`${API}/v1/webhook-endpoints/${noisyHooks[next++ % noisyHooks.length]?.endpoint_uuid}/test`, {
            method: "POST",
            headers: noisyAuth,
          }),
        abort.signal,
        counts.tests,
      ),
    ),
    ...times("ingest", 4).map(() =>
      loop(
        () =>
          fetch(`${API}/v1/usage/events`, {
            method: "POST",
            headers: { "x-api-key": ingestKey, "content-type": "application/json" },
            body: usageBatch(),
          }),
        abort.signal,
        counts.ingest,
      ),
    ),
    ...times("reads", 2).map(() =>
      loop(
        () => fetch(report, { headers: { ...noisyAuth, accept: "text/csv" } }),
        abort.signal,
        counts.reads,
      ),
    ),
    ...times("reads", 1).map(() =>
      loop(() => fetch(search, { headers: noisyAuth }), abort.signal, counts.reads),
    ),
  ];
  await new Promise((r) => setTimeout(r, 3000));
  const busy = await measure("beside the noise");
  abort.abort();
  console.error("stopping the noise (calls in flight end first)");
  await Promise.allSettled(noise);

  const labels: Record<Name, string> = {
    summary: "quiet GET /v1/usage/summary",
    series: "quiet GET /v1/usage/series",
    budgets: "quiet GET /v1/budgets",
    delivery: "quiet webhook test delivery",
  };
  const figures: Figure[] = [];
  for (const name of Object.keys(labels) as Name[]) {
    const base = quantile(idle[name], 0.95);
    const loaded = quantile(busy[name], 0.95);
    figures.push({ id: `${name}-idle`, label: `${labels[name]}, idle p95`, value: base, unit: "ms" });
    figures.push({
      id: `${name}-busy`,
      label: `${labels[name]}, beside the noisy tenant p95`,
      value: loaded,
      unit: "ms",
      ratio: loaded / base,
      baseline: `${labels[name]}, idle`,
      target:
        name === "delivery" ? { on: "value", op: "<", limit: 5000 } : { on: "ratio", op: "<=", limit: 2 },
    });
  }
  const notes = [
    `noisy webhook tests answered: ${describeCounts(counts.tests)}`,
    `noisy ingestion answered: ${describeCounts(counts.ingest)}`,
    `noisy heavy reads answered: ${describeCounts(counts.reads)}`,
  ];
  console.log(
    `\nnoisy neighbour (${EVENTS} demo events, ${postgres ? "postgresql" : "pglite"}, noise: ${[...NOISE].join(", ")}), load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  for (const n of notes) console.log(n);
  for (const f of figures)
    console.log(
      `  ${f.label.padEnd(56)} ${f.value.toFixed(1).padStart(8)} ${f.unit}${f.ratio !== undefined ? `  ${f.ratio.toFixed(2)}× idle` : ""}`,
    );
  results.save(figures, notes);
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    served.stop();
    receiver.closeAllConnections();
    receiver.close();
  });
