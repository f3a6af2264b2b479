import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../server/platform/database";
import { DEMO_ORG } from "../../server/seed";
import { accessToken, type Backend, createScratchDatabase, startProduct, type TestProduct } from "./harness";
import { sendAsOperator, setSamplePrices } from "./usage-setup";

// Dashboard usage reads from a streaming read replica (DATABASE_READ_URL), writes on the primary
// (DATABASE_URL). Runs when DATABASE_URL and TEST_READ_REPLICA_URL, a replica streaming from that
// server, are set, e.g. after `scripts/replica.sh start`:
//   TEST_READ_REPLICA_URL=postgres://root@127.0.0.1:5433/postgres (.ci/run sets it up).
// (Not DATABASE_READ_URL itself: servers the other suites start on PGlite inherit the environment,
// and a replica without DATABASE_URL is a configuration error.) The database name in the URL is
// replaced by this suite's scratch database, which the replica receives from the primary like any
// other write.

const primaryUrl = process.env.DATABASE_URL;
const replicaUrl = process.env.TEST_READ_REPLICA_URL;

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/** Runs `sql` on the replica server as its (super)user: replay control and checks. */
async function onReplica<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: replicaUrl });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

/** Waits for replication: a replica may trail a busy primary by seconds (no timing is asserted). */
async function until(what: string, check: () => Promise<boolean>, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A scratch database on the primary, opened with the replica's copy of it as the read handle. */
const replicated: Backend = {
  name: "postgres with a read replica",
  async open() {
    const name = `ec_test_replica_${randomBytes(5).toString("hex")}`;
    const scratch = await createScratchDatabase(primaryUrl ?? "", name);
    try {
      await until("the scratch database on the replica", async () => {
        const rows = await onReplica(`select 1 from pg_database where datname = '${name}'`);
        return rows.length === 1;
      });
      const database = await openDatabase({
        kind: "postgres",
        url: scratch.url,
        readUrl: withDatabase(replicaUrl ?? "", name),
      });
      return { database, drop: scratch.drop };
    } catch (err) {
      await scratch.drop();
      throw err;
    }
  },
  // Built and seeded by startProduct, as before: the template is the primary's alone to copy.
  openSeeded() {
    return replicated.open();
  },
};

describe.runIf(primaryUrl && replicaUrl)("usage reads from a read replica", () => {
  let p: TestProduct;
  let bearer = "";
  let orgId = "";

  const summary = async () => {
    const res = await p.api.app.inject({
      method: "GET",
      url: "/v1/usage/summary",
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().totals as { events: number; count: number; cost: string };
  };

  const event = (id: string) => ({
    event_id: id,
    occurred_at: new Date().toISOString(),
    operation: "generation",
    eval_type: "safety",
    quantity: 3,
  });

  beforeAll(async () => {
    // Replay may have been left paused by an interrupted run.
    await onReplica("select pg_wal_replay_resume()");
    p = await startProduct(replicated);
    bearer = await accessToken(p, "admin@acme.test");
    const org = await p.identity.admin.findOrganizationBySlug(DEMO_ORG.slug);
    orgId = org?.id ?? "";
    await setSamplePrices(p.database.db);
  }, 120_000);
  afterAll(async () => {
    await onReplica("select pg_wal_replay_resume()").catch(() => {});
    await p?.dispose();
  });

  it("answers the summary from the replica: a write shows once the replica has replayed it", async () => {
    await sendAsOperator(p, orgId, [event("r-1")]);
    await until("the first event through the API", async () => (await summary()).events === 1);

    // With replay paused the replica stays behind the primary: the write is accepted (primary),
    // the dashboard still shows the replica's state, and the new event appears once replayed.
    await onReplica("select pg_wal_replay_pause()");
    try {
      await until("replay paused", async () => {
        const [row] = await onReplica<{ state: string }>("select pg_get_wal_replay_pause_state() as state");
        return row?.state === "paused";
      });
      const sent = await sendAsOperator(p, orgId, [event("r-2"), event("r-3")]);
      expect(sent.accepted).toBe(2);
      expect((await summary()).events).toBe(1);
      // Calls that must read their own writes stay on the primary: sending the same batch again
      // is answered as duplicates, although the replica has not seen the first copy yet.
      const again = await sendAsOperator(p, orgId, [event("r-2"), event("r-3")]);
      expect(again).toMatchObject({ accepted: 0, duplicates: 2 });
    } finally {
      await onReplica("select pg_wal_replay_resume()");
    }
    await until("the replayed events through the API", async () => (await summary()).events === 3);
    expect((await summary()).count).toBe(9);
  }, 180_000);

  it("keeps every non-usage read on the primary: a workspace made while replay is paused is listed at once", async () => {
    await onReplica("select pg_wal_replay_pause()");
    try {
      const created = await p.api.app.inject({
        method: "POST",
        url: "/v1/workspaces/",
        headers: { authorization: `Bearer ${bearer}` },
        payload: { name: `Replica Lab ${randomBytes(3).toString("hex")}`, organization_uuid: orgId },
      });
      expect(created.statusCode, created.body).toBe(201);
      const list = await p.api.app.inject({
        method: "GET",
        url: "/v1/workspaces/",
        headers: { authorization: `Bearer ${bearer}` },
      });
      expect(list.statusCode, list.body).toBe(200);
      expect(JSON.stringify(list.json())).toContain(created.json().workspace_uuid);
    } finally {
      await onReplica("select pg_wal_replay_resume()");
    }
  });
});
