import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, usageDaily, usageEvents } from "../../server/db/schema";
import { setOperator } from "../../server/identity/impersonation/operators";
import { openCycle } from "../../server/metering/billing/billing";
import { createIngestKey, revokeIngestKey } from "../../server/metering/ingestion/ingest-keys";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { accessToken, backends, startProduct, type TestProduct } from "./harness";
import { type IngestResult, PAST, setSamplePrices, USAGE_EVENTS_URL } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

describe.each(backends())("usage ingestion on $name", (backend) => {
  let p: TestProduct;
  let f: Fixture;
  /** Ingestion keys: one per organization and one for all of them. */
  const orgKeys = { acme: "", globex: "", all: "" };
  let operator: Record<string, string> = {};

  const newKey = async (organizationUuid: string | null) =>
    (await createIngestKey(p.database.db, { name: "eval service", organizationUuid })).token;

  beforeAll(async () => {
    p = await startProduct(backend);
    f = await setUpWorkspaces(p);
    orgKeys.acme = await newKey(f.acmeId);
    orgKeys.globex = await newKey(f.globexId);
    orgKeys.all = await newKey(null);
    await setOperator(p.database.db, "newcomer@acme.test", true);
    operator = { authorization: `Bearer ${await accessToken(p, "newcomer@acme.test")}` };
    const db = p.database.db;
    await setSamplePrices(db);
  });
  afterAll(async () => p?.dispose());

  const send = (headers: Record<string, string>, payload: unknown) =>
    p.api.app.inject({ method: "POST", url: USAGE_EVENTS_URL, headers, payload: payload as object });
  const asKey = (key: string) => ({ "x-api-key": key });
  const ingest = async (events: unknown[], key = orgKeys.acme) => {
    const res = await send(asKey(key), { events });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as IngestResult;
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
    // a-4 matches no price rule: accepted, awaiting pricing (usage-awaiting-pricing.test.ts).
    expect(await ingest(batch)).toEqual({
      accepted: 3,
      awaiting_pricing: 1,
      late: 0,
      duplicates: 1,
      rejected: [
        { index: 2, event_id: "a-3", reason: "occurred_at is required" },
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
    expect(again.duplicates).toBe(4);
    expect(again.rejected).toHaveLength(3);
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

  it("stores an operator's adjustments with a negative cost, audits them and nets them in the rollup", async () => {
    const day = "2026-04-15";
    const sent = await send(operator, {
      events: [
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
          eval_type: "goodwill",
          cost: -0.25,
          notes: "goodwill",
        }),
      ],
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const res = sent.json() as IngestResult;
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
    const audit = await p.database.db
      .select()
      .from(auditLog)
      .where(sql`action = 'usage.adjustment_recorded' and organization_uuid = ${f.acmeId}`);
    expect(audit.map((a) => [a.targetId, a.actorEmail, a.source, a.after])).toEqual([
      [
        "adj-credit",
        "newcomer@acme.test",
        "console",
        { cost: "-0.50", notes: "credit: failed run", occurred_at: `${day}T02:00:00.000Z` },
      ],
      [
        "adj-norule",
        "newcomer@acme.test",
        "console",
        { cost: "-0.25", notes: "goodwill", occurred_at: `${day}T03:00:00.000Z` },
      ],
    ]);
    await expectRollupMatchesRaw();
  });

  it("rejects an explicit cost from an ingestion key per event, and from customers with 403", async () => {
    const before = await counts();
    const res = await ingest([
      ev({ event_id: "nc-credit", cost: "-800.00", notes: "lower my bill" }),
      ev({ event_id: "nc-free", quantity: 1_000_000, cost: "0", notes: "free" }),
      ev({ event_id: "nc-ok" }),
    ]);
    expect(res).toEqual({
      accepted: 1,
      awaiting_pricing: 0,
      late: 0,
      duplicates: 0,
      rejected: [0, 1].map((index) => ({
        index,
        event_id: index ? "nc-free" : "nc-credit",
        reason: expect.stringMatching(
          /^cost is for price adjustments, which only provider operators can make/,
        ),
      })),
    });
    for (const who of ["admin", "adminKey"] as const) {
      const denied = await send(f.headers(who), {
        events: [ev({ event_id: "nc-admin", cost: "-800.00", notes: "lower my bill" })],
      });
      expect(denied.statusCode, who).toBe(403);
    }
    expect((await counts()).events).toBe(before.events + 1);
    const audited = await p.database.db.select().from(auditLog).where(sql`target_id like 'nc-%'`);
    expect(audited).toEqual([]);
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

  it("takes usage only from ingestion keys: customer tokens and keys get 403, nothing is written", async () => {
    const before = await counts();
    const payload = { events: [ev({ event_id: "refused" })] };
    for (const who of ["admin", "member", "other", "memberKey", "adminKey"] as const) {
      const res = await send(f.headers(who), payload);
      expect(res.statusCode, who).toBe(403);
      expect(res.json().error).toEqual({
        code: "forbidden",
        message:
          "Usage is sent by the provider's eval services with an ingestion key (x-api-key: eci_...), not with customer sign-ins or customer API keys.",
      });
    }
    expect((await send({}, payload)).statusCode).toBe(401);
    const unknown = await send(asKey(`eci_${"A".repeat(43)}`), payload);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error.message).toBe("The ingestion key is not valid or was revoked.");
    // Another organization's key may not name this one.
    const cross = await send(asKey(orgKeys.globex), payload);
    expect(cross.statusCode).toBe(200);
    const aimed = await p.api.app.inject({
      method: "POST",
      url: `${USAGE_EVENTS_URL}?organization_uuid=${f.acmeId}`,
      headers: asKey(orgKeys.globex),
      payload,
    });
    expect(aimed.statusCode).toBe(403);
    expect(aimed.json().error.message).toBe(
      "This ingestion key sends usage for one organization only, not this one.",
    );
    const [acme] = await p.database.db
      .select({ n: sql<string>`count(*)::text` })
      .from(usageEvents)
      .where(sql`event_id = 'refused' and organization_uuid = ${f.acmeId}`);
    expect(acme?.n).toBe("0");
    expect((await counts()).events).toBe(before.events + 1); // Globex's own
  });

  it("takes an all-organizations key with organization_uuid, and refuses a revoked key at once", async () => {
    const payload = { events: [ev({ event_id: "all-1" })] };
    const missing = await send(asKey(orgKeys.all), payload);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toBe(
      "organization_uuid is required with an ingestion key for all organizations.",
    );
    const to = (org: string, key = orgKeys.all) =>
      p.api.app.inject({
        method: "POST",
        url: `${USAGE_EVENTS_URL}?organization_uuid=${org}`,
        headers: asKey(key),
        payload,
      });
    expect((await to("no-such-org")).statusCode).toBe(404);
    expect((await to(f.globexId)).json()).toMatchObject({ accepted: 1 });
    const [row] = await p.database.db.select().from(usageEvents).where(sql`event_id = 'all-1'`);
    expect(row?.organizationUuid).toBe(f.globexId);
    // Backfills are for operators, not for ingestion keys.
    const backfill = await p.api.app.inject({
      method: "POST",
      url: `${USAGE_EVENTS_URL}?backfill=true`,
      headers: asKey(orgKeys.acme),
      payload,
    });
    expect(backfill.statusCode).toBe(403);

    const doomed = await createIngestKey(p.database.db, { name: "doomed", organizationUuid: f.acmeId });
    expect((await send(asKey(doomed.token), { events: [] })).statusCode).toBe(200);
    expect((await revokeIngestKey(p.database.db, doomed.key.ingestKeyUuid)).status).toBe("revoked");
    const revoke = await p.api.app.inject({
      method: "POST",
      url: `/v1/operator/ingest-keys/${doomed.key.ingestKeyUuid}/revoke`,
      headers: operator,
    });
    expect(revoke.statusCode).toBe(409); // already revoked; the server forgets what it cached
    expect((await send(asKey(doomed.token), { events: [] })).statusCode).toBe(401);
  });

  it("lets provider operators create, list and revoke ingestion keys over the API", async () => {
    const call = (method: "GET" | "POST", url: string, headers = operator, payload?: object) =>
      p.api.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    const made = await call("POST", "/v1/operator/ingest-keys", operator, {
      name: "nightly evals",
      organization: "Globex",
    });
    expect(made.statusCode, made.body).toBe(200);
    const key = made.json();
    expect(key).toMatchObject({ name: "nightly evals", organization_uuid: f.globexId, revoked_at: null });
    expect(key.token).toMatch(/^eci_[A-Za-z0-9_-]{43}$/);
    expect((await send(asKey(key.token), { events: [ev({ event_id: "op-key-1" })] })).json()).toMatchObject({
      accepted: 1,
    });
    const list = await call("GET", "/v1/operator/ingest-keys");
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain("eci_");
    expect(list.json()).toContainEqual(expect.objectContaining({ ingest_key_uuid: key.ingest_key_uuid }));
    // Hashes only: the token is nowhere in the database.
    const [stored] = await p.database.db
      .execute(sql`select count(*)::int as n from ingest_keys
      where token_hash = encode(sha256(convert_to(${key.token}, 'UTF8')), 'hex')`)
      .then((r) => (r as unknown as { rows: { n: number }[] }).rows);
    expect(stored?.n).toBe(1);
    expect(
      (await call("POST", "/v1/operator/ingest-keys", operator, { organization: "Nope" })).statusCode,
    ).toBe(404);
    for (const who of ["admin", "adminKey"] as const)
      expect(
        (await call("GET", "/v1/operator/ingest-keys", f.headers(who))).statusCode,
      ).toBeGreaterThanOrEqual(401);
    expect((await call("GET", "/v1/operator/ingest-keys", f.headers("admin"))).statusCode).toBe(403);
    const revoked = await call("POST", `/v1/operator/ingest-keys/${key.ingest_key_uuid}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().revoked_at).not.toBeNull();
    expect((await send(asKey(key.token), { events: [] })).statusCode).toBe(401);
  });

  it("bounds dates, quantities and costs per event so no stored sum can overflow", async () => {
    const db = p.database.db;
    const before = await counts();
    const big = "9223372036854.775807";
    const res = await p.api.app.inject({
      method: "POST",
      url: `${USAGE_EVENTS_URL}?organization_uuid=${f.globexId}`,
      headers: operator,
      payload: {
        events: [
          ev({ event_id: "b-huge-cost", occurred_at: "2026-05-02T00:00:00Z", cost: big, notes: "overflow" }),
          ev({
            event_id: "b-max-cost",
            occurred_at: "2026-05-02T00:00:00Z",
            cost: "-1000000.00",
            notes: "max",
          }),
          ev({
            event_id: "b-over-cost",
            occurred_at: "2026-05-02T00:00:00Z",
            cost: "1000000.01",
            notes: "x",
          }),
          ev({ event_id: "b-ok", occurred_at: "2026-05-02T01:00:00Z" }),
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      accepted: 2,
      awaiting_pricing: 0,
      late: 0,
      duplicates: 0,
      rejected: [
        { index: 0, event_id: "b-huge-cost", reason: "cost must be between -1,000,000.00 and 1,000,000.00" },
        { index: 2, event_id: "b-over-cost", reason: "cost must be between -1,000,000.00 and 1,000,000.00" },
      ],
    });
    // Later events of the same day still add up (once, the huge cost was stored and they were 500s).
    expect(
      await ingest([ev({ event_id: "b-later", occurred_at: "2026-05-02T02:00:00Z" })], orgKeys.globex),
    ).toMatchObject({ accepted: 1 });

    const q = await ingest([
      ev({ event_id: "b-q-max", quantity: 1_000_000 }),
      ev({ event_id: "b-q-over", quantity: 1_000_001 }),
      ev({ event_id: "b-q-frac", quantity: 1.5 }),
      ev({ event_id: "b-year1", occurred_at: "0001-01-01T00:00:00Z" }),
      ev({ event_id: "b-year0", occurred_at: "0000-01-01T00:00:00Z" }),
      ev({ event_id: "b-9999", occurred_at: "9999-12-31T23:59:59Z" }),
      ev({ event_id: "b-1999", occurred_at: "1999-12-31T23:59:59Z" }),
    ]);
    expect(q.accepted).toBe(1);
    expect(q.rejected.map((r) => [r.event_id, r.reason])).toEqual([
      ["b-q-over", "quantity must be at most 1000000"],
      ["b-q-frac", "quantity must be a whole number"],
      [
        "b-year1",
        "occurred_at 0001-01-01T00:00:00.000Z is before 2000-01-01, the earliest date usage can have",
      ],
      ["b-year0", expect.stringMatching(/^occurred_at 0000-01-01T00:00:00.000Z is before 2000-01-01/)],
      ["b-9999", "occurred_at 9999-12-31T23:59:59.000Z is more than 5 minutes in the future"],
      ["b-1999", expect.stringMatching(/is before 2000-01-01/)],
    ]);
    // Once the organization has billing cycles, nothing before the first one.
    await openCycle(db, f.globexId, "2026-02-01");
    const early = await ingest(
      [
        ev({ event_id: "b-jan", occurred_at: "2026-01-31T23:59:59Z" }),
        ev({ event_id: "b-feb", occurred_at: "2026-02-01T00:00:00Z" }),
      ],
      orgKeys.globex,
    );
    expect(early).toEqual({
      accepted: 1,
      awaiting_pricing: 0,
      late: 0,
      duplicates: 0,
      rejected: [
        {
          index: 0,
          event_id: "b-jan",
          reason:
            "occurred_at 2026-01-31T23:59:59.000Z is before the organization's first billing cycle, which starts 2026-02-01",
        },
      ],
    });
    // A priced cost above the limit (quantity × unit price) is refused too.
    await setPriceRule(db, { operation: "pricey", unitPrice: "2.00", validFrom: PAST });
    const pricey = await ingest([ev({ event_id: "b-pricey", operation: "pricey", quantity: 600_000 })]);
    expect(pricey.rejected[0]?.reason).toMatch(/exceeds the limit of \$1,000,000.00 per event/);
    expect((await counts()).events).toBe(before.events + 5);
    await expectRollupMatchesRaw();
  });

  it("rejects events with NUL characters or unpaired surrogates on their own and keeps the good ones", async () => {
    const res = await ingest([
      ev({ event_id: "nul-1", name: "a\u0000b" }),
      ev({ event_id: "nul-ok" }),
      ev({ event_id: "sur-1", created_by: "x\ud800y" }),
      ev({ event_id: "nul\u0000id" }),
      ev({ event_id: "sur-2", notes: "\udc00" }),
      { ...ev({ event_id: "key-nul" }), "bad\u0000key": 1 },
    ]);
    expect(res.accepted).toBe(1);
    expect(res.rejected.map((r) => [r.index, r.event_id, r.reason])).toEqual([
      [0, "nul-1", "name must not contain NUL characters or unpaired surrogates"],
      [2, "sur-1", "created_by must not contain NUL characters or unpaired surrogates"],
      [3, null, "event_id must not contain NUL characters or unpaired surrogates"],
      [4, "sur-2", "notes must not contain NUL characters or unpaired surrogates"],
      [5, "key-nul", expect.stringMatching(/^unknown field\(s\)/)],
    ]);
    // NDJSON: the same, per line.
    const lines = [
      JSON.stringify(ev({ event_id: "nd-nul", modality: "\u0000" })),
      JSON.stringify(ev({ event_id: "nd-ok" })),
    ].join("\n");
    const nd = await p.api.app.inject({
      method: "POST",
      url: USAGE_EVENTS_URL,
      headers: { ...asKey(orgKeys.acme), "content-type": "application/x-ndjson" },
      payload: lines,
    });
    expect(nd.statusCode, nd.body).toBe(200);
    expect(nd.json()).toMatchObject({ accepted: 1, rejected: [{ index: 0, event_id: "nd-nul" }] });
  });

  it("authenticates before reading the body; NDJSON is taken on this route only", async () => {
    // Unauthenticated: 401 at once, whatever the body (before, a 17 MiB body was read first: 413).
    const huge = await p.api.app.inject({
      method: "POST",
      url: USAGE_EVENTS_URL,
      headers: { "content-type": "application/x-ndjson" },
      payload: "x".repeat(17 * 1024 * 1024),
    });
    expect(huge.statusCode).toBe(401);
    const garbage = await send({ "content-type": "application/json" }, "{events:");
    expect(garbage.statusCode).toBe(401);
    // With a key the route takes up to 16 MiB; above is 413.
    const tooBig = await p.api.app.inject({
      method: "POST",
      url: USAGE_EVENTS_URL,
      headers: { ...asKey(orgKeys.acme), "content-type": "application/x-ndjson" },
      payload: "x".repeat(17 * 1024 * 1024),
    });
    expect(tooBig.statusCode).toBe(413);
    // Other routes know nothing of NDJSON.
    const other = await p.api.app.inject({
      method: "POST",
      url: "/v1/workspaces/",
      headers: { ...f.headers("admin"), "content-type": "application/x-ndjson" },
      payload: '{"name":"nd"}',
    });
    expect(other.statusCode).toBe(415);
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
      url: USAGE_EVENTS_URL,
      headers: { ...asKey(orgKeys.acme), "content-type": "application/json" },
      payload: "{events:",
    });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().error.code).toBe("invalid_json");
    expect(await ingest([])).toEqual({
      accepted: 0,
      awaiting_pricing: 0,
      late: 0,
      duplicates: 0,
      rejected: [],
    });
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
    expect(await ingest(batch)).toEqual({
      accepted: 10_000,
      awaiting_pricing: 0,
      late: 0,
      duplicates: 0,
      rejected: [],
    });
    const [row] = await p.database.db
      .select({ n: sql<string>`event_count::text`, c: sql<string>`cost_micros_sum::text` })
      .from(usageDaily)
      .where(sql`day = '2026-07-01'`);
    expect(row).toEqual({ n: "10000", c: String(10_000n * 12_500n) });
    await expectRollupMatchesRaw();
  });
});
