// Soak: a steady mixed load on the product for a while, to find errors that only come with time
// and memory that only grows. Kinds of calls, each paced to a fixed rate:
//   reads    GET /v1/workspaces/ and GET /v1/usage/summary with a bearer token (20/s)
//   ingest   POST /v1/usage/events, batches of 100 new events with an ingestion key (1/s)
//   refresh  GET /api/v1/refresh_token on the identity service with the session cookie (2/s);
//            the reads use the newest token
// Prints, per minute and at the end, requests/s, p99 and errors per kind, and the server's RSS and
// heap (read after a full garbage collection) at the start, every minute and at the end.
// Usage: npx tsx bench/soak.ts [seconds, default 60]
// The server runs in its own process (see bench/load.ts), on PGlite or a fresh DATABASE_URL database.
import { performance } from "node:perf_hooks";
import { machine, startServerProcess } from "./load";

const seconds = Number(process.argv[2] ?? 60);
const MiB = 2 ** 20;

type Kind = "reads" | "ingest" | "refresh";
type Tally = { latencies: number[]; errors: number };
const fresh = (): Record<Kind, Tally> => ({
  reads: { latencies: [], errors: 0 },
  ingest: { latencies: [], errors: 0 },
  refresh: { latencies: [], errors: 0 },
});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function main() {
  const server = await startServerProcess();
  const { ready } = server;
  let bearer = ready.bearer;
  const total = fresh();
  let minute = fresh();
  const firstErrors: string[] = [];
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** One timed call; a network error or a status of 400 and up counts as an error. */
  async function timed(kind: Kind, call: () => Promise<Response>, check?: (res: Response) => Promise<void>) {
    const t = performance.now();
    try {
      const res = await call();
      if (check && res.ok) await check(res);
      else await res.arrayBuffer();
      const ms = performance.now() - t;
      total[kind].latencies.push(ms);
      minute[kind].latencies.push(ms);
      if (res.status >= 400) throw new Error(`${kind}: ${res.status}`);
    } catch (err) {
      total[kind].errors++;
      minute[kind].errors++;
      if (firstErrors.length < 10) firstErrors.push(`${kind}: ${(err as Error).message}`);
    }
  }

  /** Runs `step` `rate` times a second until the end, without catching up after a slow call. */
  async function paced(rate: number, end: number, step: (i: number) => Promise<void>) {
    const interval = 1000 / rate;
    for (let i = 0, next = performance.now(); performance.now() < end; i++) {
      await step(i);
      next += interval;
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      else next = performance.now();
    }
  }

  let eventSeq = 0;
  const batch = () => {
    const at = new Date(Date.now() - 1000).toISOString();
    return Array.from({ length: 100 }, () => ({
      event_id: `soak-${process.pid}-${eventSeq++}`,
      occurred_at: at,
      operation: eventSeq % 3 ? "generation" : "scoring",
      eval_type: eventSeq % 2 ? "safety" : "accuracy",
      quantity: 1,
    }));
  };

  const memory: { at: number; rss: number; heapUsed: number }[] = [];
  const sample = async (at: number) => {
    const m = await server.memory();
    memory.push({ at, rss: m.rss, heapUsed: m.heapUsed });
    return m;
  };
  const mem = (m: { rss: number; heapUsed: number }) =>
    `RSS ${(m.rss / MiB).toFixed(0)} MiB, heap ${(m.heapUsed / MiB).toFixed(0)} MiB`;

  console.log(`machine: ${machine()}; database: ${ready.database}; ${seconds} s soak`);
  const m0 = await sample(0);
  console.log(`start: ${mem(m0)}`);

  const start = performance.now();
  const end = start + seconds * 1000;
  const line = (tallies: Record<Kind, Tally>, elapsedS: number) =>
    (Object.keys(tallies) as Kind[])
      .map((k) => {
        const sorted = [...tallies[k].latencies].sort((a, b) => a - b);
        return `${k} ${(sorted.length / elapsedS).toFixed(1)}/s p99 ${percentile(sorted, 0.99).toFixed(0)} ms err ${tallies[k].errors}`;
      })
      .join(" | ");

  const reporter = (async () => {
    let mark = start;
    while (performance.now() < end - 1000) {
      await sleep(Math.min(60_000, end - performance.now()));
      if (performance.now() >= end - 1000) break;
      const now = performance.now();
      const m = await sample(Math.round((now - start) / 1000));
      console.log(`t=${Math.round((now - start) / 1000)}s  ${line(minute, (now - mark) / 1000)}  ${mem(m)}`);
      minute = fresh();
      mark = now;
    }
  })();

  const reads = (worker: number) =>
    paced(10, end, (i) =>
      timed("reads", () =>
        fetch(`${ready.api}${(i + worker) % 2 ? "/v1/usage/summary" : "/v1/workspaces/"}`, {
          headers: { authorization: `Bearer ${bearer}` },
        }),
      ),
    );
  const ingest = paced(1, end, () =>
    timed(
      "ingest",
      () =>
        fetch(`${ready.api}/v1/usage/events`, {
          method: "POST",
          headers: { "x-api-key": ready.ingestKey, "content-type": "application/json" },
          body: JSON.stringify({ events: batch() }),
        }),
      async (res) => {
        const r = (await res.json()) as { accepted: number; rejected: unknown[] };
        if (r.accepted !== 100)
          throw new Error(`ingest: ${r.accepted} of 100 accepted ${JSON.stringify(r.rejected[0])}`);
      },
    ),
  );
  const refresh = paced(2, end, () =>
    timed(
      "refresh",
      () => fetch(`${ready.auth}/api/v1/refresh_token`, { headers: { cookie: ready.cookie } }),
      async (res) => {
        bearer = ((await res.json()) as { access_token: string }).access_token;
      },
    ),
  );
  await Promise.all([reads(0), reads(1), ingest, refresh, reporter]);
  const elapsed = (performance.now() - start) / 1000;
  const mEnd = await sample(Math.round(elapsed));
  await server.stop();

  console.log(`\nend after ${elapsed.toFixed(0)} s: ${mem(mEnd)}`);
  console.log(
    "kind".padEnd(10),
    "requests".padStart(9),
    "req/s".padStart(7),
    "p50 ms".padStart(8),
    "p99 ms".padStart(8),
    "max ms".padStart(8),
    "errors".padStart(7),
  );
  for (const k of Object.keys(total) as Kind[]) {
    const sorted = [...total[k].latencies].sort((a, b) => a - b);
    console.log(
      k.padEnd(10),
      String(sorted.length).padStart(9),
      (sorted.length / elapsed).toFixed(1).padStart(7),
      percentile(sorted, 0.5).toFixed(1).padStart(8),
      percentile(sorted, 0.99).toFixed(1).padStart(8),
      (sorted.at(-1) ?? 0).toFixed(0).padStart(8),
      String(total[k].errors).padStart(7),
    );
  }
  const errors = Object.values(total).reduce((s, t) => s + t.errors, 0);
  const peak = Math.max(...memory.map((m) => m.rss));
  console.log(
    `errors: ${errors}${firstErrors.length ? ` (first: ${firstErrors.join("; ")})` : ""}\n` +
      `memory: RSS ${(m0.rss / MiB).toFixed(0)} → ${(mEnd.rss / MiB).toFixed(0)} MiB (${((mEnd.rss - m0.rss) / MiB).toFixed(0)} MiB growth, peak sampled ${(peak / MiB).toFixed(0)} MiB), ` +
      `heap after GC ${(m0.heapUsed / MiB).toFixed(0)} → ${(mEnd.heapUsed / MiB).toFixed(0)} MiB (${((mEnd.heapUsed - m0.heapUsed) / MiB).toFixed(1)} MiB growth); ` +
      `${eventSeq.toLocaleString("en-US")} events sent`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
