import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import { parseOperatorCommand, runOperatorCommand } from "../../server/cli/operator-commands";
import { databaseOperatorBackend } from "../../server/cli/operator-database";
import { priceRules } from "../../server/db/schema";
import { closeCycle } from "../../server/metering/billing/billing";
import { ingestUsage } from "../../server/metering/ingestion/ingest";
import { createIngestKey } from "../../server/metering/ingestion/ingest-keys";
import { awaitingByDimension, priceAwaitingEvents } from "../../server/metering/pricing/awaiting-pricing";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { setUpBudgets } from "./budgets-fixture";
import { backends, startProduct, type TestProduct } from "./harness";
import { setPriceAndWait } from "./job-wait";
import { addCycle, type IngestResult, PAST, sendAsOperator, USAGE_EVENTS_URL } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

// Usage no price rule matches is accepted and awaits pricing: kept once, counted apart from the
// bill, and priced exactly once when a rule covers it; the default price list prices a new
// organization's usage from its first event.

type Rows<T> = { rows: T[] };

describe.each(backends())("usage awaiting pricing on $name", (backend) => {
  let p: TestProduct;
  let f: Fixture;
  const keys = { acme: "", globex: "" };
  const db = () => p.database.db;
  const local = () => ({ authorization: `Bearer ${p.identity.ctx.backendApiKey}` });

  beforeAll(async () => {
    p = await startProduct(backend);
    f = await setUpWorkspaces(p);
    keys.acme = (await createIngestKey(db(), { name: "eval service", organizationUuid: f.acmeId })).token;
    keys.globex = (await createIngestKey(db(), { name: "eval service", organizationUuid: f.globexId })).token;
  });
  afterAll(async () => p?.dispose());

  const ingest = async (events: unknown[], key = keys.acme) => {
    const res = await p.api.app.inject({
      method: "POST",
      url: USAGE_EVENTS_URL,
      headers: { "x-api-key": key },
      payload: { events },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as IngestResult & { awaiting_pricing: number };
  };

  let seq = 0;
  const ev = (over: Record<string, unknown> = {}) => ({
    event_id: `aw-${++seq}`,
    occurred_at: "2026-03-02T10:00:00Z",
    operation: "translation",
    eval_type: "bleu",
    ...over,
  });

  const query = async <T>(text: string) => ((await db().execute(sql.raw(text))) as unknown as Rows<T>).rows;
  const n = async (text: string) => Number((await query<{ n: string | number }>(text))[0]?.n ?? 0);

  /** Stored events, awaiting events and the rollups of one organization, as sums. */
  async function state(org: string) {
    const q = (t: string) => n(t.replaceAll("$org", `'${org}'`));
    return {
      events: await q("select count(*) as n from usage_events where organization_uuid = $org"),
      eventCost: await q(
        "select coalesce(sum(cost_micros), 0)::text as n from usage_events where organization_uuid = $org",
      ),
      awaiting: await q("select count(*) as n from usage_events_awaiting where organization_uuid = $org"),
      keys: await q("select count(*) as n from usage_event_keys where organization_uuid = $org"),
      dailyEvents: await q(
        "select coalesce(sum(event_count), 0)::text as n from usage_daily where organization_uuid = $org",
      ),
      dailyCost: await q(
        "select coalesce(sum(cost_micros_sum), 0)::text as n from usage_daily where organization_uuid = $org",
      ),
      coarseCost: await q(
        "select coalesce(sum(cost_micros_sum), 0)::text as n from usage_daily_coarse where organization_uuid = $org",
      ),
      midCost: await q(
        "select coalesce(sum(cost_micros_sum), 0)::text as n from usage_daily_mid where organization_uuid = $org",
      ),
    };
  }

  const expectRollupsMatch = async (org: string) => {
    const s = await state(org);
    expect(s.dailyEvents).toBe(s.events);
    expect(s.dailyCost).toBe(s.eventCost);
    expect(s.coarseCost).toBe(s.eventCost);
    expect(s.midCost).toBe(s.eventCost);
    return s;
  };

  it("accepts an event no price rule matches as awaiting pricing; a resend is a duplicate", async () => {
    const before = await state(f.acmeId);
    const first = await ingest([ev({ event_id: "aw-bleu-1", quantity: 3 })]);
    expect(first).toEqual({ accepted: 1, awaiting_pricing: 1, late: 0, duplicates: 0, rejected: [] });
    const again = await ingest([ev({ event_id: "aw-bleu-1", quantity: 3 })]);
    expect(again).toEqual({ accepted: 0, awaiting_pricing: 0, late: 0, duplicates: 1, rejected: [] });
    const after = await state(f.acmeId);
    // Kept, its key taken, but not billed: no event row, no rollup, not even $0.
    expect(after.awaiting).toBe(before.awaiting + 1);
    expect(after.keys).toBe(before.keys + 1);
    expect(after.events).toBe(before.events);
    expect(after.dailyEvents).toBe(before.dailyEvents);
  });

  it("counts events awaiting pricing in an operator's file import, and in its audit entry", async () => {
    const body = [
      JSON.stringify(ev({ event_id: "aw-import-1", operation: "import-op", eval_type: "import-et" })),
      JSON.stringify(ev({ event_id: "aw-import-2", operation: "generation", eval_type: "safety" })),
    ].join("\n");
    const res = await p.api.app.inject({
      method: "POST",
      url: `/v1/operator/organizations/${f.acmeId}/usage/import`,
      headers: { ...local(), "content-type": "application/x-ndjson" },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ events: 2, accepted: 2, awaiting_pricing: 1, rejected: 0 });
    const [audit] = await query<{ after: Record<string, unknown> }>(
      `select after from audit_log where action = 'usage.imported' and organization_uuid = '${f.acmeId}' order by id desc limit 1`,
    );
    expect(audit?.after).toMatchObject({ accepted: 2, awaiting_pricing: 1 });
  });

  it("counts awaiting events for the organization's administrators and, per dimension, for operators", async () => {
    await ingest([
      ev({ event_id: "aw-count-1", occurred_at: "2026-03-01T08:00:00Z", operation: "ocr", eval_type: "cer" }),
      ev({ event_id: "aw-count-2", occurred_at: "2026-03-03T08:00:00Z", operation: "ocr", eval_type: "cer" }),
    ]);
    const res = await f.call("admin", "GET", "/v1/usage/awaiting-pricing");
    expect(res.statusCode, res.body).toBe(200);
    const total = await n(
      `select count(*) as n from usage_events_awaiting where organization_uuid = '${f.acmeId}'`,
    );
    expect(res.json()).toEqual({ events: total, oldest_occurred_at: "2026-03-01T08:00:00.000Z" });
    expect(total).toBeGreaterThanOrEqual(3);
    // Members do not read billing figures; another organization sees its own (none).
    expect((await f.call("member", "GET", "/v1/usage/awaiting-pricing")).statusCode).toBe(403);
    const other = await f.call("other", "GET", "/v1/usage/awaiting-pricing");
    expect(other.json()).toEqual({ events: 0, oldest_occurred_at: null });

    const op = await f.call(
      "none",
      "GET",
      `/v1/operator/organizations/${f.acmeId}/awaiting-pricing`,
      undefined,
      local(),
    );
    expect(op.statusCode, op.body).toBe(200);
    const body = op.json();
    expect(body.events).toBe(total);
    expect(body.dimensions[0]).toMatchObject({
      operation: "ocr",
      eval_type: "cer",
      modality: "",
      rule_metric: "eval",
      events: 2,
      quantity: 2,
      oldest_occurred_at: "2026-03-01T08:00:00.000Z",
      newest_occurred_at: "2026-03-03T08:00:00.000Z",
      held: 0,
      held_reasons: [],
    });
    expect(body.dimensions.map((d: { eval_type: string }) => d.eval_type)).toContain("bleu");
    // The command line prints the same report.
    const lines: string[] = [];
    const out = { log: (l: string) => lines.push(l), error: (l: string) => lines.push(`error: ${l}`) };
    const cmd = parseOperatorCommand("price", ["awaiting", "--org", f.acmeId]);
    expect(cmd).toEqual({ ok: true, value: { kind: "price-awaiting", org: f.acmeId } });
    expect(parseOperatorCommand("price", ["awaiting"])).toMatchObject({ ok: false });
    if (!cmd?.ok) throw new Error("unreachable");
    expect(await runOperatorCommand(cmd.value, databaseOperatorBackend(p), out)).toBe(0);
    expect(lines[0]).toBe(`${total} events of Acme AI await pricing (oldest 2026-03-01T08:00:00.000Z):`);
    expect(lines[1]).toBe(
      "  operation=ocr eval_type=cer modality=(none) rule_metric=eval: 2 events, quantity 2, 2026-03-01T08:00:00.000Z to 2026-03-03T08:00:00.000Z",
    );
    // Customers never reach the operator view.
    expect(
      (await f.call("admin", "GET", `/v1/operator/organizations/${f.acmeId}/awaiting-pricing`)).statusCode,
    ).toBe(403);
  });

  it("prices the awaiting events once when an operator sets a rule that covers them; totals add up", async () => {
    await ingest([
      ev({ event_id: "aw-sum-1", operation: "summarize", eval_type: "rouge", quantity: 7 }),
      ev({ event_id: "aw-sum-2", operation: "summarize", eval_type: "rouge", rule_metric: "prompt" }),
      ev({
        event_id: "aw-sum-3",
        operation: "summarize",
        eval_type: "rouge",
        occurred_at: "2026-03-05T00:00:00Z",
      }),
    ]);
    const before = await state(f.acmeId);
    // The awaiting events are priced by the price's job, followed to its end.
    const res = await setPriceAndWait(p.api.app, local(), {
      organization_uuid: f.acmeId,
      operation: "summarize",
      unit_price_usd: "0.000313",
      valid_from: PAST.toISOString(),
    });
    expect(res.statusCode, res.body).toBe(201);
    const after = await expectRollupsMatch(f.acmeId);
    expect(after.awaiting).toBe(before.awaiting - 3);
    expect(after.events).toBe(before.events + 3);
    expect(after.keys).toBe(before.keys);
    expect(after.eventCost - before.eventCost).toBe(9 * 313);
    const priced = await query<{ event_id: string; cost_micros: string; price_rule_uuid: string }>(
      `select event_id, cost_micros::text, price_rule_uuid from usage_events where event_id like 'aw-sum-%' order by event_id`,
    );
    expect(priced.map((r) => [r.event_id, r.cost_micros])).toEqual([
      ["aw-sum-1", "2191"],
      ["aw-sum-2", "313"],
      ["aw-sum-3", "313"],
    ]);
    expect(new Set(priced.map((r) => r.price_rule_uuid))).toEqual(new Set([res.json().price_rule_uuid]));
    // The dashboard's totals are the events' costs, to the micro-dollar.
    const cycle = await addCycle(p, f.acmeId, "2026-03-01", null);
    const summary = await f.call("admin", "GET", `/v1/usage/summary?billing_cycle_uuid=${cycle}`);
    expect(summary.statusCode, summary.body).toBe(200);
    expect(parseUsd(summary.json().totals.cost)).toBe(BigInt(after.eventCost));
    expect(summary.json().totals.events).toBe(after.events);
    // Setting the same price again prices nothing twice.
    await setPriceRule(db(), { organizationUuid: f.acmeId, operation: "summarize", unitPrice: "0.000313" });
    expect(await state(f.acmeId)).toEqual(after);
    // Resent, they are duplicates.
    expect((await ingest([ev({ event_id: "aw-sum-1" })])).duplicates).toBe(1);
  });

  it("prices each event once with two pricing runs at the same time", async () => {
    const events = Array.from({ length: 60 }, (_, i) =>
      ev({
        event_id: `aw-race-${i}`,
        operation: "caption",
        eval_type: "cider",
        quantity: 1 + (i % 5),
        occurred_at: `2026-03-${String(1 + (i % 20)).padStart(2, "0")}T12:00:00Z`,
      }),
    );
    expect(await ingest(events)).toMatchObject({ accepted: 60, awaiting_pricing: 60 });
    const before = await state(f.acmeId);
    // The rule is stored without the pricing run setPriceRule makes; then two runs race.
    await db()
      .insert(priceRules)
      .values({ organizationUuid: f.acmeId, operation: "caption", unitPriceMicros: 1_111n, validFrom: PAST });
    const runs = await Promise.all([
      priceAwaitingEvents(db(), f.acmeId),
      priceAwaitingEvents(db(), f.acmeId),
      priceAwaitingEvents(db(), null),
    ]);
    expect(runs.reduce((s, r) => s + r.priced, 0)).toBe(60);
    const after = await expectRollupsMatch(f.acmeId);
    expect(after.events).toBe(before.events + 60);
    expect(after.awaiting).toBe(before.awaiting - 60);
    const quantity = events.reduce((s, _e, i) => s + 1 + (i % 5), 0);
    expect(after.eventCost - before.eventCost).toBe(quantity * 1_111);
    expect(await n("select count(*) as n from usage_events where event_id like 'aw-race-%'")).toBe(60);
  });

  it("bills an event of a cycle closed meanwhile as late usage in the open cycle; a backfill bills it there", async () => {
    await addCycle(p, f.globexId, "2026-01-01", null);
    const events = [
      ev({ event_id: "aw-closed-1", occurred_at: "2026-01-10T00:00:00Z", eval_type: "wer" }),
      ev({ event_id: "aw-closed-2", occurred_at: "2026-01-12T00:00:00Z", eval_type: "wer" }),
    ];
    expect(await ingest(events, keys.globex)).toMatchObject({ accepted: 2, awaiting_pricing: 2 });
    await closeCycle(db(), f.globexId, { endDate: "2026-02-01", openNext: true });
    // An operator sends the second again with backfill: a duplicate, now allowed into its closed cycle.
    const resent = await p.api.app.inject({
      method: "POST",
      url: `${USAGE_EVENTS_URL}?backfill=true&organization_uuid=${f.globexId}`,
      headers: local(),
      payload: { events: [events[1]] },
    });
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.json()).toMatchObject({ accepted: 0, duplicates: 1, rejected: [] });
    const before = Date.now();
    await setPriceRule(db(), {
      organizationUuid: f.globexId,
      evalType: "wer",
      unitPrice: "0.5",
      validFrom: PAST,
    });
    const after = await expectRollupsMatch(f.globexId);
    expect(after).toMatchObject({ awaiting: 0, events: 2, eventCost: 1_000_000 });
    const rows = await query<{
      event_id: string;
      occurred_at: Date | string;
      late_occurred_at: Date | string | null;
      late_period_start: string | null;
      late_period_end: string | null;
    }>(
      `select event_id, occurred_at, late_occurred_at, late_period_start::text, late_period_end::text
         from usage_events where organization_uuid = '${f.globexId}' order by event_id`,
    );
    // The first is late usage: billed now, in the open cycle, priced and marked with its period.
    const [late, backfilled] = rows;
    expect(new Date(late?.occurred_at ?? 0).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(late).toMatchObject({ late_period_start: "2026-01-01", late_period_end: "2026-02-01" });
    expect(new Date(late?.late_occurred_at ?? 0).toISOString()).toBe("2026-01-10T00:00:00.000Z");
    // The backfilled one is billed in its closed cycle, on its day, unmarked.
    expect(backfilled).toMatchObject({
      event_id: "aw-closed-2",
      late_occurred_at: null,
      late_period_start: null,
    });
    expect(new Date(backfilled?.occurred_at ?? 0).toISOString()).toBe("2026-01-12T00:00:00.000Z");
  });

  it("leaves an event from before a first billing cycle opened meanwhile awaiting", async () => {
    const org = "org-awaiting-first-cycle";
    expect(
      await ingestUsage(db(), org, [ev({ event_id: "aw-early-1", occurred_at: "2026-01-05T00:00:00Z" })]),
    ).toMatchObject({ accepted: 1, awaiting_pricing: 1 });
    await addCycle(p, org, "2026-02-01", null);
    const run = await setPriceRule(db(), { organizationUuid: org, unitPrice: "1", validFrom: PAST }).then(
      () => awaitingByDimension(db(), org),
    );
    expect(run).toMatchObject([{ events: 1, held: 1 }]);
    expect(run[0]?.heldReasons[0]).toMatch(
      /before the organization's first billing cycle, which starts 2026-02-01/,
    );
    expect((await state(org)).events).toBe(0);
  });

  it("prices a new organization's first event with the default price list", async () => {
    const defaults = await db().select().from(priceRules).where(sql`${priceRules.builtIn}`);
    expect(new Set(defaults.map((r) => r.evalType))).toEqual(
      new Set(["safety", "image_safety", "jailbreak", "accuracy", "hallucination"]),
    );
    expect(defaults.every((r) => r.organizationUuid === null)).toBe(true);
    // Listed with the global price list, marked as the shipped defaults.
    const listed = await f.call(
      "none",
      "GET",
      "/v1/operator/price-rules?organization_uuid=global",
      undefined,
      local(),
    );
    const shipped = (listed.json().price_rules as { built_in: boolean; eval_type: string | null }[]).filter(
      (r) => r.built_in,
    );
    expect(shipped).toHaveLength(defaults.length);
    const { organizationUuid } = await newOrganization();
    const key = (await createIngestKey(db(), { name: "new", organizationUuid })).token;
    const res = await ingest(
      [
        ev({ event_id: "first-1", operation: "generation", eval_type: "jailbreak", quantity: 2 }),
        ev({ event_id: "first-2", operation: "scoring", eval_type: "safety", rule_metric: "prompt" }),
      ],
      key,
    );
    expect(res).toEqual({ accepted: 2, awaiting_pricing: 0, late: 0, duplicates: 0, rejected: [] });
    const rows = await query<{ event_id: string; cost_micros: string }>(
      `select event_id, cost_micros::text from usage_events where organization_uuid = '${organizationUuid}' order by event_id`,
    );
    expect(rows).toEqual([
      { event_id: "first-1", cost_micros: "160000" },
      { event_id: "first-2", cost_micros: "1000" },
    ]);
    await expectRollupsMatch(organizationUuid);
    // An operator's global price wins over the shipped one, and replaces it for the same dimensions.
    await setPriceRule(db(), {
      evalType: "jailbreak",
      ruleMetric: "eval",
      unitPrice: "0.09",
      validFrom: new Date("2026-03-02T11:00:00Z"),
    });
    await ingest([ev({ event_id: "first-3", operation: "generation", eval_type: "jailbreak" })], key);
    const [third] = await query<{ cost_micros: string }>(
      `select cost_micros::text from usage_events where event_id = 'first-3' and organization_uuid = '${organizationUuid}'`,
    );
    expect(third?.cost_micros).toBe("80000");
    await ingest(
      [
        ev({
          event_id: "first-4",
          operation: "generation",
          eval_type: "jailbreak",
          occurred_at: "2026-03-03T00:00:00Z",
        }),
      ],
      key,
    );
    const [fourth] = await query<{ cost_micros: string }>(
      `select cost_micros::text from usage_events where event_id = 'first-4' and organization_uuid = '${organizationUuid}'`,
    );
    expect(fourth?.cost_micros).toBe("90000");
  });

  /** An organization made now, with no price rule of its own. */
  async function newOrganization() {
    const org = await p.identity.admin.createOrganization("Newco", "newco");
    return { organizationUuid: org.id };
  }
});

describe.each(backends())("usage priced from awaiting pricing counts toward budgets on $name", (backend) => {
  let p: TestProduct;
  let f: Fixture;
  let b: Awaited<ReturnType<typeof setUpBudgets>>;
  beforeAll(async () => {
    p = await startProduct(backend);
    f = await setUpWorkspaces(p);
    b = await setUpBudgets(p, f);
  });
  afterAll(async () => p?.dispose());

  it("alerts a budget when awaiting usage is priced, as when it is ingested priced", async () => {
    const redTeam = await f.idOf("Red Team");
    const budget = await b.createBudget("admin", {
      scope: "workspace",
      workspace_uuid: redTeam,
      amount: "100",
    });
    const sent = await sendAsOperator(p, f.acmeId, [
      {
        event_id: "aw-budget-1",
        occurred_at: new Date(Date.now() - 1000).toISOString(),
        operation: "translation",
        eval_type: "bleu",
        workspace_uuid: redTeam,
        quantity: 6000,
      },
    ]);
    expect(sent).toMatchObject({ accepted: 1, awaiting_pricing: 1 });
    await b.notifier.settled();
    expect(b.takeMails()).toEqual([]);
    expect(await b.budget("admin", budget.budget_uuid)).toMatchObject({ spent: "0.00" });

    await setPriceRule(p.database.db, {
      organizationUuid: f.acmeId,
      operation: "translation",
      unitPrice: "0.01",
      validFrom: PAST,
    });
    await b.notifier.settled();
    expect(b.takeMails()).toEqual([
      "admin@acme.test: Budget alert: Red Team reached 50% of its $100.00 monthly budget",
    ]);
    expect(await b.budget("admin", budget.budget_uuid)).toMatchObject({
      spent: "60.00",
      triggered_thresholds: [50],
    });
  });
});
