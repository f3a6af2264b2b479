import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_KEY_PURGE, jobHandlers } from "../../server/background-jobs";
import { KEY_PAGE, purgeExpiredEventKeys } from "../../server/metering/ingestion/event-key-retention";
import { ingestUsage } from "../../server/metering/ingestion/ingest";
import { createIngestKey } from "../../server/metering/ingestion/ingest-keys";
import { createJobRunner } from "../../server/platform/jobs";
import { backends, startProduct, type TestProduct } from "./harness";
import { type IngestResult, setSamplePrices, USAGE_EVENTS_URL } from "./usage-setup";
import { setUpWorkspaces } from "./workspaces-fixture";

// The retention of usage_event_keys under USAGE_MAX_AGE_DAYS (docs/pricing.md, "Event ids and
// their retention"): events older than the horizon are refused, and only their keys are deleted,
// so every event that can still be accepted is still counted once.

const DAY = 24 * 60 * 60 * 1000;
const MAX_AGE_DAYS = 30;

describe.each(backends())("usage event key retention on $name", (backend) => {
  let p: TestProduct;
  let org = "";
  let key = "";

  beforeAll(async () => {
    p = await startProduct(backend, { USAGE_MAX_AGE_DAYS: String(MAX_AGE_DAYS) });
    org = (await setUpWorkspaces(p)).acmeId;
    key = (await createIngestKey(p.database.db, { name: "eval service", organizationUuid: org })).token;
    await setSamplePrices(p.database.db);
  }, 120_000);
  afterAll(async () => p?.dispose());

  const ev = (id: string, daysAgo: number) => ({
    event_id: id,
    occurred_at: new Date(Date.now() - daysAgo * DAY).toISOString(),
    operation: "generation",
    eval_type: "safety",
  });
  const send = async (events: unknown[]) => {
    const res = await p.api.app.inject({
      method: "POST",
      url: USAGE_EVENTS_URL,
      headers: { "x-api-key": key },
      payload: { events },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as IngestResult;
  };
  const rows = async (q: ReturnType<typeof sql>) =>
    ((await p.database.db.execute(q)) as unknown as { rows: Record<string, string>[] }).rows;
  const keyCount = async (like: string) =>
    Number(
      (
        await rows(
          sql`select count(*)::text as n from usage_event_keys where organization_uuid = ${org} and event_id like ${like}`,
        )
      )[0]?.n,
    );
  const eventCount = async (id: string) =>
    Number(
      (
        await rows(
          sql`select count(*)::text as n from usage_events where organization_uuid = ${org} and event_id = ${id}`,
        )
      )[0]?.n,
    );

  it("refuses usage older than the horizon; after a run, keys inside it still make a resend a duplicate and older keys are gone", async () => {
    // Inside the horizon, one of them at its very edge (the oldest day still accepted).
    const edge = new Date(Date.now() - MAX_AGE_DAYS * DAY);
    edge.setUTCHours(0, 0, 0, 0);
    const inside = [
      ev("ret-new", 1),
      ev("ret-29d", 29),
      { ...ev("ret-edge", 0), occurred_at: edge.toISOString() },
    ];
    const first = await send(inside);
    expect(first).toMatchObject({ accepted: 3, duplicates: 0, rejected: [] });

    // Past the horizon the API refuses the event, saying why.
    const tooOld = await send([ev("ret-old-api", MAX_AGE_DAYS + 2)]);
    expect(tooOld.accepted).toBe(0);
    expect(tooOld.rejected[0]?.reason).toMatch(
      /more than 30 days old: usage is accepted from \d{4}-\d\d-\d\d on/,
    );

    // An event stored while it was still inside the horizon, which has since moved past it.
    const stored = await ingestUsage(p.database.db, org, [ev("ret-old", MAX_AGE_DAYS + 5)]);
    expect(stored.accepted).toBe(1);
    expect(await keyCount("ret-%")).toBe(4);

    expect(await purgeExpiredEventKeys(p.database.db, MAX_AGE_DAYS)).toBe(1);
    expect(await keyCount("ret-old")).toBe(0);
    expect(await keyCount("ret-%")).toBe(3);

    // Every key inside the horizon still deduplicates: the resend stores nothing.
    const again = await send(inside);
    expect(again).toMatchObject({ accepted: 0, duplicates: 3, rejected: [] });
    for (const id of ["ret-new", "ret-29d", "ret-edge"]) expect(await eventCount(id)).toBe(1);
    // The event whose key went cannot come back: it is refused, and stored once.
    const resent = await send([ev("ret-old", MAX_AGE_DAYS + 5)]);
    expect(resent.accepted).toBe(0);
    expect(resent.rejected).toHaveLength(1);
    expect(await eventCount("ret-old")).toBe(1);
  });

  it("bounds the table to the horizon's keys, page by page, and is run by the server's own schedule", async () => {
    // More expired keys than one page holds, between kept ones in key order.
    const n = KEY_PAGE + 2_500;
    const old = new Date(Date.now() - (MAX_AGE_DAYS + 3) * DAY).toISOString();
    const recent = new Date(Date.now() - 2 * DAY).toISOString();
    await p.database.db.execute(sql`
      insert into usage_event_keys (organization_uuid, event_id, occurred_at)
      select ${org}, 'bulk-' || lpad(i::text, 6, '0'),
             case when i % 5 = 0 then ${recent}::timestamptz else ${old}::timestamptz end
        from generate_series(1, ${n}) i`);
    const kept = n / 5;
    expect(await keyCount("bulk-%")).toBe(n);

    const log = { info: (_o: object, _m: string) => {}, error: (_o: object, _m: string) => {} };
    const ran = new Promise<object>((resolve, reject) => {
      log.info = (o) => resolve(o);
      log.error = (o) => reject(o);
    });
    // The server's job runner, with the daily task due at once.
    const settings = { auditRetentionDays: 365, usageMaxAgeDays: MAX_AGE_DAYS };
    const runner = createJobRunner(p.database.db, {
      log,
      pollMs: 50,
      handlers: jobHandlers(p.database.db, settings, log),
      recurring: [{ kind: EVENT_KEY_PURGE, everyMs: DAY, firstAfterMs: 0 }],
    });
    await runner.start();
    try {
      expect(await ran).toEqual({ purged: n - kept, maxAgeDays: MAX_AGE_DAYS });
    } finally {
      await runner.stop();
    }
    expect(await keyCount("bulk-%")).toBe(kept);
    // A second run finds nothing more: what is left is what the horizon still needs.
    expect(await purgeExpiredEventKeys(p.database.db, MAX_AGE_DAYS)).toBe(0);
    // No horizon (0): every date is accepted, so no key is ever deleted.
    expect(await purgeExpiredEventKeys(p.database.db, 0, new Date(Date.now() + 10_000 * DAY))).toBe(0);
  });
});
