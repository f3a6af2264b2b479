import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usageDaily, usageEvents } from "../../server/db/schema";
import { setPriceRule } from "../../server/metering/prices";
import { backends, signIn, startProduct, type TestProduct } from "./harness";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

const URL = "/v1/usage/events";
const PAST = new Date("2020-01-01T00:00:00Z");

type Result = {
  accepted: number;
  duplicates: number;
  rejected: { index: number; event_id: string | null; reason: string }[];
};

describe.each(backends())("usage ingestion on $name", (backend) => {
  let p: TestProduct;
  let f: Fixture;
  const orgKeys = { acme: "", globex: "" };

  async function orgKey(email: string, orgId: string) {
    const res = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/api_keys",
      headers: { cookie: await signIn(p, email), "x-csrf-token": "-.-" },
      payload: { org_id: orgId, expiration_option: "OneMonth" },
    });
    if (res.statusCode !== 200) throw new Error(`org key for ${email}: ${res.statusCode} ${res.body}`);
    return res.json().api_key_token as string;
  }

  beforeAll(async () => {
    p = await startProduct(backend);
    f = await setUpWorkspaces(p);
    orgKeys.acme = await orgKey("admin@acme.test", f.acmeId);
    orgKeys.globex = await orgKey("other@globex.test", f.globexId);
    const db = p.database.db;
    await setPriceRule(db, { operation: "generation", unitPrice: "0.01", validFrom: PAST });
    await setPriceRule(db, {
      operation: "generation",
      evalType: "safety",
      unitPrice: "0.0125",
      validFrom: PAST,
    });
    await setPriceRule(db, { operation: "scoring", unitPrice: "0.002", validFrom: PAST });
  });
  afterAll(async () => p?.dispose());

  const send = (headers: Record<string, string>, payload: unknown) =>
    p.api.app.inject({ method: "POST", url: URL, headers, payload: payload as object });
  const asKey = (key: string) => ({ "x-api-key": key });
  const ingest = async (events: unknown[], key = orgKeys.acme) => {
    const res = await send(asKey(key), { events });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Result;
  };

  let seq = 0;
  const ev = (over: Record<string, unknown> = {}) => ({
    event_id: `ev-${++seq}`,
    occurred_at: "2026-03-01T10:00:00Z",
    operation: "generation",
    eval_type: "safety",
    ...over,
  });

  async function counts() {
    const db = p.database.db;
    const [events] = await db.select({ n: sql<string>`count(*)` }).from(usageEvents);
    const [daily] = await db.select({ n: sql<string>`count(*)` }).from(usageDaily);
    return { events: Number(events?.n), daily: Number(daily?.n) };
  }

  /** Per organization, day and dimensions: the rollup equals a fresh aggregate of the raw events. */
  async function expectRollupMatchesRaw() {
    const raw = await p.database.db.execute(sql`
      select organization_uuid, (occurred_at at time zone 'UTC')::date::text as day, workspace_uuid,
             operation, eval_type, modality, is_jailbreak, has_ground_truth, rule_metric,
             count(*)::text as n, sum(quantity)::text as q, sum(cost_micros)::text as c
        from usage_events group by 1,2,3,4,5,6,7,8,9 order by 1,2,3,4,5,6,7,8,9`);
    const daily = await p.database.db.execute(sql`
      select organization_uuid, day::text as day, workspace_uuid, operation, eval_type, modality,
             is_jailbreak, has_ground_truth, rule_metric,
             event_count::text as n, quantity_sum::text as q, cost_micros_sum::text as c
        from usage_daily order by 1,2,3,4,5,6,7,8,9`);
    const rows = (r: unknown) => (r as { rows: unknown[] }).rows;
    expect(rows(daily)).toEqual(rows(raw));
  }

  it("accepts good events, counts duplicates and rejects bad ones with reasons, keeping the good ones", async () => {
    const ws = await f.idOf("Red Team");
    const batch = [
      ev({ event_id: "a-1", quantity: 4, workspace_uuid: ws, modality: "TEXT" }),
      ev({ event_id: "a-2", operation: "scoring", eval_type: "accuracy" }),
      { event_id: "a-3", operation: "generation" },
      ev({ event_id: "a-4", operation: "translation", eval_type: "bleu" }),
      ev({ event_id: "a-1", quantity: 9 }),
      "not an event",
      ev({ event_id: "a-5", workspace_uuid: "00000000-0000-4000-8000-000000000000" }),
    ];
    expect(await ingest(batch)).toEqual({
      accepted: 2,
      duplicates: 1,
      rejected: [
        { index: 2, event_id: "a-3", reason: "occurred_at is required" },
        {
          index: 3,
          event_id: "a-4",
          reason: expect.stringMatching(/^no price rule matches operation=translation eval_type=bleu/),
        },
        { index: 5, event_id: null, reason: "each event must be a JSON object" },
        {
          index: 6,
          event_id: "a-5",
          reason: expect.stringMatching(/is not a workspace of this organization/),
        },
      ],
    });
    const rows = await p.database.db.select().from(usageEvents).where(sql`event_id in ('a-1','a-2')`);
    const a1 = rows.find((r) => r.eventId === "a-1");
    expect(a1).toMatchObject({
      organizationUuid: f.acmeId,
      workspaceUuid: ws,
      modality: "text",
      quantity: 4,
      ruleMetric: "eval",
      unitPriceMicros: 12_500n,
      costMicros: 50_000n,
    });
    expect(rows.find((r) => r.eventId === "a-2")).toMatchObject({
      unitPriceMicros: 2_000n,
      costMicros: 2_000n,
    });

    const again = await ingest(batch);
    expect(again.accepted).toBe(0);
    expect(again.duplicates).toBe(3);
    expect(again.rejected).toHaveLength(4);
    // Another organization's event ids are its own.
    expect(await ingest([ev({ event_id: "a-1" })], orgKeys.globex)).toMatchObject({
      accepted: 1,
      duplicates: 0,
    });
    await expectRollupMatchesRaw();
  });

  it("counts each event once when four clients send the same batch at the same time", async () => {
    const before = await counts();
    const batch: Record<string, unknown>[] = Array.from({ length: 300 }, (_, i) =>
      ev({
        event_id: `c-${i}`,
        occurred_at: `2026-03-0${1 + (i % 3)}T0${i % 10}:00:00Z`,
        operation: i % 2 ? "generation" : "scoring",
        quantity: 1 + (i % 4),
        is_jailbreak: i % 5 === 0,
      }),
    );
    const results = await Promise.all([1, 2, 3, 4].map(() => ingest(batch)));
    expect(results.reduce((s, r) => s + r.accepted, 0)).toBe(300);
    expect(results.reduce((s, r) => s + r.duplicates, 0)).toBe(900);
    for (const r of results) expect(r.rejected).toEqual([]);
    const after = await counts();
    expect(after.events - before.events).toBe(300);
    const [sum] = await p.database.db
      .select({
        n: sql<string>`count(*)::text`,
        q: sql<string>`sum(quantity)::text`,
        c: sql<string>`sum(cost_micros)::text`,
      })
      .from(usageEvents)
      .where(sql`event_id like 'c-%'`);
    const expected = batch.reduce(
      (acc, e) => acc + BigInt(e.quantity as number) * (e.operation === "scoring" ? 2_000n : 12_500n),
      0n,
    );
    expect(sum).toEqual({
      n: "300",
      q: String(batch.reduce((s, e) => s + (e.quantity as number), 0)),
      c: String(expected),
    });
    await expectRollupMatchesRaw();
  });

  it("stores adjustments with a negative cost and nets them in the rollup", async () => {
    const day = "2026-04-15";
    const res = await ingest([
      ev({ event_id: "adj-base", occurred_at: `${day}T01:00:00Z`, quantity: 100 }),
      ev({
        event_id: "adj-credit",
        occurred_at: `${day}T02:00:00Z`,
        cost: "-0.50",
        notes: "credit: failed run",
      }),
      ev({ event_id: "adj-nonote", occurred_at: `${day}T02:00:00Z`, cost: "-0.50" }),
      ev({
        event_id: "adj-norule",
        occurred_at: `${day}T03:00:00Z`,
        operation: "refund",
        cost: -0.25,
        notes: "goodwill",
      }),
    ]);
    expect(res).toMatchObject({
      accepted: 3,
      duplicates: 0,
      rejected: [{ index: 2, event_id: "adj-nonote" }],
    });
    const credit = (await p.database.db.select().from(usageEvents).where(sql`event_id = 'adj-credit'`))[0];
    expect(credit).toMatchObject({
      costMicros: -500_000n,
      unitPriceMicros: 12_500n,
      notes: "credit: failed run",
    });
    const refund = (await p.database.db.select().from(usageEvents).where(sql`event_id = 'adj-norule'`))[0];
    expect(refund).toMatchObject({ costMicros: -250_000n, unitPriceMicros: 0n, priceRuleUuid: null });
    const [net] = await p.database.db
      .select({ c: sql<string>`sum(cost_micros_sum)` })
      .from(usageDaily)
      .where(sql`day = ${day} and organization_uuid = ${f.acmeId}`);
    expect(net?.c).toBe(String(1_250_000n - 500_000n - 250_000n));
    await expectRollupMatchesRaw();
  });

  it("prices with the most specific rule in force, the organization's own first", async () => {
    const db = p.database.db;
    await setPriceRule(db, {
      operation: "generation",
      evalType: "safety",
      modality: "image",
      unitPrice: "0.05",
      validFrom: PAST,
    });
    await setPriceRule(db, { operation: "generation", evalType: "bias", unitPrice: "0.03", validFrom: PAST });
    // A price change on 2026-06-01: earlier events keep the old price.
    await setPriceRule(db, {
      operation: "generation",
      evalType: "bias",
      unitPrice: "0.04",
      validFrom: new Date("2026-06-01T00:00:00Z"),
    });
    await setPriceRule(db, { organizationUuid: f.globexId, unitPrice: "0.001", validFrom: PAST });
    await ingest([
      ev({ event_id: "m-image", modality: "Image" }),
      ev({ event_id: "m-text", modality: "text" }),
      ev({ event_id: "m-other", eval_type: "toxicity" }),
      ev({ event_id: "m-bias-may", eval_type: "bias", occurred_at: "2026-05-31T23:59:59Z" }),
      ev({ event_id: "m-bias-june", eval_type: "bias", occurred_at: "2026-06-01T00:00:00Z" }),
    ]);
    await ingest([ev({ event_id: "m-globex", modality: "image" })], orgKeys.globex);
    const rows = await db.select().from(usageEvents).where(sql`event_id like 'm-%'`);
    const price = (id: string) => rows.find((r) => r.eventId === id)?.unitPriceMicros;
    expect(price("m-image")).toBe(50_000n);
    expect(price("m-text")).toBe(12_500n);
    expect(price("m-other")).toBe(10_000n);
    expect(price("m-bias-may")).toBe(30_000n);
    expect(price("m-bias-june")).toBe(40_000n);
    expect(price("m-globex")).toBe(1_000n);
  });

  it("rejects events more than 5 minutes in the future", async () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    const later = new Date(Date.now() + 10 * 60_000).toISOString();
    const res = await ingest([
      ev({ event_id: "f-soon", occurred_at: soon }),
      ev({ event_id: "f-later", occurred_at: later }),
    ]);
    expect(res).toMatchObject({
      accepted: 1,
      rejected: [
        { index: 1, event_id: "f-later", reason: expect.stringMatching(/more than 5 minutes in the future/) },
      ],
    });
  });

  it("refuses members, personal keys and anonymous callers without writing anything", async () => {
    const before = await counts();
    const payload = { events: [ev({ event_id: "refused" })] };
    for (const who of ["member", "newcomer", "memberKey", "adminKey"] as const) {
      const res = await send(f.headers(who), payload);
      expect(res.statusCode, who).toBe(403);
      expect(res.json().error.code).toBe("forbidden");
    }
    const anon = await send({}, payload);
    expect(anon.statusCode).toBe(401);
    expect((await send(asKey("not-a-key"), payload)).statusCode).toBe(401);
    expect(await counts()).toEqual(before);
    // An administrator's bearer token may send usage.
    expect((await send(f.headers("admin"), payload)).json()).toMatchObject({ accepted: 1 });
  });

  it("answers bad bodies with a 400 JSON error", async () => {
    const before = await counts();
    const bad: [unknown, RegExp][] = [
      [{}, /events is required/],
      [{ events: "x" }, /events/],
      [{ events: [], extra: 1 }, /Unknown body field/],
      [[ev()], /JSON object/],
      [{ events: Array.from({ length: 10_001 }, () => ({})) }, /at most 10000 events/],
    ];
    for (const [payload, message] of bad) {
      const res = await send(asKey(orgKeys.acme), payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json().error).toMatchObject({
        code: "invalid_request",
        message: expect.stringMatching(message),
      });
    }
    const notJson = await p.api.app.inject({
      method: "POST",
      url: URL,
      headers: { ...asKey(orgKeys.acme), "content-type": "application/json" },
      payload: "{events:",
    });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().error.code).toBe("invalid_json");
    expect(await ingest([])).toEqual({ accepted: 0, duplicates: 0, rejected: [] });
    expect(await counts()).toEqual(before);
  });

  it("takes a full batch of 10,000 events in one call", async () => {
    const batch = Array.from({ length: 10_000 }, (_, i) =>
      ev({
        event_id: `big-${i}`,
        occurred_at: "2026-07-01T00:00:00Z",
        name: `eval ${i % 7}`,
        created_by: "ci@acme.test",
      }),
    );
    expect(await ingest(batch)).toEqual({ accepted: 10_000, duplicates: 0, rejected: [] });
    const [row] = await p.database.db
      .select({ n: sql<string>`event_count::text`, c: sql<string>`cost_micros_sum::text` })
      .from(usageDaily)
      .where(sql`day = '2026-07-01'`);
    expect(row).toEqual({ n: "10000", c: String(10_000n * 12_500n) });
    await expectRollupMatchesRaw();
  });
});
