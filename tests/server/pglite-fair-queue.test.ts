// The embedded database runs one statement at a time; its queue takes turns by organization, so
// one tenant's pile of queued statements delays another's call by one statement, not by the pile.
// Asserted on the order statements finish in, not on times.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGliteWorkerClient } from "../../server/platform/pglite-proxy";
import { runAsTenant } from "../../server/platform/tenant-scope";

describe("the embedded database's statement queue", () => {
  let client: PGliteWorkerClient;
  beforeAll(async () => {
    client = await PGliteWorkerClient.open(null);
  }, 60_000);
  afterAll(() => client?.close());

  /** Queues `n` statements for `tenant` (writes, or time-limited reads); logs each as it ends. */
  const pile = (tenant: string, n: number, done: string[], reads = false) =>
    runAsTenant(tenant, () =>
      Array.from({ length: n }, (_, i) => {
        const db = reads ? client.withTimeLimit(60_000) : client;
        return db
          .query("select count(*) from generate_series(1, 20000)")
          .then(() => done.push(`${tenant}${i + 1}`));
      }),
    );

  it("serves a quiet tenant's statement after one of a busy tenant's, not after all of them", async () => {
    const done: string[] = [];
    const busy = pile("busy", 20, done);
    const quiet = pile("quiet", 1, done);
    await Promise.all([...busy, ...quiet]);
    // busy1 was running; then busy and quiet alternate.
    expect(done.indexOf("quiet1")).toBeLessThanOrEqual(2);
    expect(done).toHaveLength(21);
  });

  it("does the same for reports: a busy tenant's queued reads do not hold another's", async () => {
    const done: string[] = [];
    const busy = pile("busy", 20, done, true);
    const quiet = pile("quiet", 1, done, true);
    await Promise.all([...busy, ...quiet]);
    expect(done.indexOf("quiet1")).toBeLessThanOrEqual(2);
  });

  it("lets one tenant's writes go before its own waiting reads, and work outside requests take turns", async () => {
    const done: string[] = [];
    const reads = pile("a", 5, done, true);
    const writes = pile("b", 5, done);
    const mine = runAsTenant("a", () => client.query("select 1").then(() => done.push("a-write")));
    const signIn = client.query("select 1").then(() => done.push("sign-in"));
    await Promise.all([...reads, ...writes, mine, signIn]);
    // a's write was queued after its five reads but goes first among a's waiting work.
    expect(done.indexOf("a-write")).toBeLessThan(done.indexOf("a3"));
    // Work outside any request waits for one statement of each busy tenant at most.
    expect(done.indexOf("sign-in")).toBeLessThanOrEqual(3);
  });
});
