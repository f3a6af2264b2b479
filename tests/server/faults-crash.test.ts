import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import {
  launchServer,
  type ServerProcess,
  sendUntilAcknowledged,
  sleep,
  startServer,
  summaryTotals,
  UNIT_PRICE_MICROS,
  usageEvent,
} from "./fault-tools";
import { createScratchDatabase } from "./harness";

// Faults: the server is killed with SIGKILL in the middle of ingestion while clients keep retrying
// every batch with the same event ids until it is acknowledged; it is started again on the same
// data. Afterwards the API counts every event exactly once: no acknowledged batch lost (durable
// commits), no retried batch counted twice (event_id idempotency), the rollup behind the summary
// consistent with what was stored.

type Target = {
  name: string;
  /** Environment for the server, and a clean-up for after the test. */
  prepare(): Promise<{ env: Record<string, string>; cleanUp(): Promise<void> }>;
};

const targets: Target[] = [
  {
    name: "pglite",
    async prepare() {
      const dir = mkdtempSync(join(tmpdir(), "eval-console-crash-"));
      return { env: { DATA_DIR: dir }, cleanUp: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
];
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl)
  targets.push({
    name: "postgres",
    async prepare() {
      const scratch = await createScratchDatabase(
        databaseUrl,
        `ec_crash_${Date.now().toString(36)}_${process.pid}`,
      );
      return { env: { DATABASE_URL: scratch.url, SEED_DEMO: "always" }, cleanUp: scratch.drop };
    },
  });

const CLIENTS = 2;
const BATCHES_PER_CLIENT = 12;
const BATCH = 200;
const TOTAL = CLIENTS * BATCHES_PER_CLIENT * BATCH;

describe.each(targets)("kill -9 during ingestion on $name", (target) => {
  const servers: ServerProcess[] = [];
  let cleanUp = async () => {};
  afterAll(async () => {
    for (const s of servers) s.kill("SIGKILL");
    await Promise.all(servers.map((s) => s.exited));
    await cleanUp();
  });

  it("loses no acknowledged event and counts no retried event twice", { timeout: 180_000 }, async () => {
    const prepared = await target.prepare();
    cleanUp = prepared.cleanUp;
    const launched = await launchServer(prepared.env);
    const { env, api, headers, ingest, at } = launched;
    let server = launched.server;
    servers.push(server);

    const batches = (client: number) =>
      Array.from({ length: BATCHES_PER_CLIENT }, (_, b) =>
        Array.from({ length: BATCH }, (_, i) => usageEvent(`crash-${client}-${b}-${i}`, at)),
      );

    // The kills: once a quarter and once half of the batches are acknowledged, right after a batch
    // has been sent, at a random point of its expected time (so over runs the batch in flight is
    // killed before, during or after its commit; either way its answer is lost), then a restart
    // on the same data while the clients keep retrying against the refused port.
    const kills = [0.25, 0.5].map((f) => Math.floor(f * CLIENTS * BATCHES_PER_CLIENT));
    let acknowledged = 0;
    let busyMs = 0;
    let quick = 0;
    let crashing: Promise<void> | null = null;
    // A restart that fails (the data could not be reopened, say) ends the test with its output.
    let crashFailure: Error | null = null;
    const restarts: number[] = [];
    const crash = async () => {
      const typical = quick ? busyMs / quick : 100;
      await sleep(Math.floor(Math.random() * typical * 1.2));
      server.kill("SIGKILL");
      await server.exited;
      const t = Date.now();
      server = await startServer(env, 120_000);
      servers.push(server);
      restarts.push(Date.now() - t);
    };
    const onAttempt = () => {
      if (!crashing && kills.length && acknowledged >= (kills[0] ?? 0)) {
        kills.shift();
        crashing = crash()
          .catch((err: Error) => {
            crashFailure = err;
          })
          .finally(() => {
            crashing = null;
          });
      }
    };

    // Generous: a loaded machine (the whole suite on two cores) makes every start-up slower.
    const deadline = Date.now() + 160_000;
    const outcomes = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const results = [];
        for (const events of batches(c)) {
          const t = Date.now();
          results.push(
            await sendUntilAcknowledged(() => api, ingest, events, {
              deadline,
              onAttempt,
              giveUp: () => crashFailure,
            }),
          );
          if (results.at(-1)?.attempts === 1) {
            busyMs += Date.now() - t;
            quick++;
          }
          acknowledged++;
        }
        return results;
      }),
    ).then((r) => r.flat());
    await crashing;
    expect(kills, "the server was not killed twice").toEqual([]);

    const retried = outcomes.filter((o) => o.attempts > 1).length;
    const duplicates = outcomes.reduce((s, o) => s + o.duplicates, 0);
    console.log(
      `${target.name}: ${TOTAL} events in ${outcomes.length} batches, 2 kills (restarts took ${restarts.join(", ")} ms); ` +
        `${retried} batches retried, ${duplicates} events found already stored on retry`,
    );
    expect(retried).toBeGreaterThan(0);

    const ready = await fetch(`${api}/readyz`);
    expect(ready.status).toBe(200);
    const totals = await summaryTotals(api, headers);
    expect(totals.events).toBe(TOTAL);
    expect(totals.count).toBe(TOTAL);
    expect(parseUsd(totals.cost)).toBe(UNIT_PRICE_MICROS * BigInt(TOTAL));
    // What every acknowledged call reported adds up: stored once, or found already stored.
    expect(outcomes.reduce((s, o) => s + o.accepted + o.duplicates, 0)).toBe(TOTAL);
  });
});
