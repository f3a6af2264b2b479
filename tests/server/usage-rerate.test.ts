import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import { auditLog } from "../../server/db/schema";
import { ingestUsage } from "../../server/metering/ingestion/ingest";
import { rerateAfterPriceChange } from "../../server/metering/pricing/price-change";
import { loadPriceRules, setPriceRule } from "../../server/metering/pricing/prices";
import { reratePages } from "../../server/metering/pricing/rerate";
import type { Db } from "../../server/platform/database";
import { backends, startProduct, type TestProduct } from "./harness";
import { setPriceAndWait } from "./job-wait";
import { addCycle, PAST, sendAsOperator, USAGE_EVENTS_URL } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

type Rows<T> = { rows: T[] };
type Rec = {
  cost: string;
  unit_price: string;
  quantity: number;
  notes: string | null;
  price_rule_uuid: string | null;
  price_rule_version: number | null;
  late_from: { period_start: string; period_end: string; occurred_at: string | null } | null;
  date: string;
};

/**
 * Re-rating through the API: a new price whose valid_from falls in the open cycle re-prices that
 * cycle's events exactly (records, summary, rollups, bill), a closed cycle's difference becomes a
 * correction line in the open cycle naming it, late events are billed in the open cycle with their
 * period, and the change is audited with the totals before and after.
 */
describe.each(backends())("re-rating and late usage on $name", (backend) => {
  let p: TestProduct;
  let f: Fixture;
  let closed = "";
  let open = "";
  const op = "gen-rerate";
  const local = () => ({ authorization: `Bearer ${p.identity.ctx.backendApiKey}` });
  const db = () => p.database.db;
  const q = async <T>(text: ReturnType<typeof sql>) =>
    ((await db().execute(text)) as unknown as Rows<T>).rows;
  const ev = (id: string, at: string, quantity: number, workspace?: string) => ({
    event_id: id,
    occurred_at: at,
    operation: op,
    eval_type: "safety",
    quantity,
    ...(workspace ? { workspace_uuid: workspace } : {}),
  });

  beforeAll(async () => {
    p = await startProduct(backend);
    f = await setUpWorkspaces(p);
    await setPriceRule(db(), {
      organizationUuid: f.acmeId,
      operation: op,
      unitPrice: "0.001234",
      validFrom: PAST,
    });
    const ws = await f.idOf("Red Team");
    // The usage first, then the cycles: October closed, November open.
    await sendAsOperator(p, f.acmeId, [
      ev("oct-10", "2026-10-10T10:00:00Z", 3, ws),
      ev("oct-20", "2026-10-20T10:00:00Z", 5, ws),
      ev("nov-05", "2026-11-05T10:00:00Z", 2, ws),
      ev("nov-20", "2026-11-20T10:00:00Z", 7),
    ]);
    closed = await addCycle(p, f.acmeId, "2026-10-01", "2026-11-01");
    open = await addCycle(p, f.acmeId, "2026-11-01", null);
  });
  afterAll(async () => p?.dispose());

  const get = async (url: string) => {
    const res = await f.call("admin", "GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json();
  };
  const records = async (cycle: string): Promise<Rec[]> =>
    (await get(`/v1/usage/records?billing_cycle_uuid=${cycle}&page_size=100`)).records;
  const summaryCost = async (cycle: string) =>
    parseUsd((await get(`/v1/usage/summary?billing_cycle_uuid=${cycle}`)).totals.cost);
  const billCost = async (cycle: string) =>
    parseUsd((await get(`/v1/accounts/organization/billingcycles?billing_cycle_uuid=${cycle}`)).total_cost);
  /** Events, and each rollup, summed over the organization: they must agree to the micro-dollar. */
  const expectConsistent = async (org: string) => {
    const [events] = await q<{ c: string }>(
      sql`select coalesce(sum(cost_micros), 0)::text as c from usage_events where organization_uuid = ${org}`,
    );
    for (const table of ["usage_daily", "usage_daily_mid", "usage_daily_coarse"]) {
      const [r] = await q<{ c: string }>(
        sql`select coalesce(sum(cost_micros_sum), 0)::text as c from ${sql.identifier(table)} where organization_uuid = ${org}`,
      );
      expect([table, r?.c]).toEqual([table, events?.c]);
    }
    return BigInt(events?.c ?? "0");
  };

  it("re-prices the open cycle exactly, bills the closed cycle's difference as a correction line, audits both", async () => {
    const closedBefore = await summaryCost(closed);
    expect(closedBefore).toBe(8n * 1_234n);
    expect(await summaryCost(open)).toBe(9n * 1_234n);
    // The re-rating is a job: followed through the operator API to its end.
    const res = await setPriceAndWait(p.api.app, local(), {
      organization_uuid: f.acmeId,
      operation: op,
      unit_price_usd: "0.002001",
      valid_from: "2026-10-15T00:00:00Z",
    });
    expect(res.statusCode, res.body).toBe(201);
    const rule = res.json();
    expect(rule.version).toBe(2);
    // Open cycle: Nov 5 (2) and Nov 20 (7). Closed: Oct 20 (5) is after valid_from, Oct 10 is not.
    expect(rule.rerating).toEqual({
      organizations: 1,
      events: 2,
      before_total: "0.011106",
      after_total: "0.018009",
      corrections: [
        {
          organization_uuid: f.acmeId,
          billing_cycle_uuid: closed,
          period_start: "2026-10-01",
          period_end: "2026-11-01",
          events: 1,
          lines: 1,
          amount: "0.003835",
        },
      ],
    });

    // The closed cycle never changes: its records, summary and bill as before.
    expect(await summaryCost(closed)).toBe(closedBefore);
    expect(await billCost(closed)).toBe(closedBefore);
    expect((await records(closed)).map((r) => r.cost).sort()).toEqual(["0.00617", "0.003702"].sort());
    // The open cycle: each event at the new price, with the new rule's version; and the line.
    const recs = await records(open);
    const usage = recs.filter((r) => !r.late_from);
    expect(usage.map((r) => [r.quantity, r.unit_price, r.cost, r.price_rule_version]).sort()).toEqual([
      [2, "0.002001", "0.004002", 2],
      [7, "0.002001", "0.014007", 2],
    ]);
    const [line] = recs.filter((r) => r.late_from);
    expect(line).toMatchObject({
      cost: "0.003835",
      quantity: 0,
      price_rule_uuid: rule.price_rule_uuid,
      late_from: { period_start: "2026-10-01", period_end: "2026-11-01", occurred_at: null },
    });
    expect(line?.notes).toMatch(
      /^Price correction for Oct 1 – Nov 1, 2026 \(closed billing cycle .+\): price rule .+ version 2, 1 event$/,
    );
    const openTotal = 18_009n + 3_835n;
    expect(await summaryCost(open)).toBe(openTotal);
    expect(await billCost(open)).toBe(openTotal);
    expect(await expectConsistent(f.acmeId)).toBe(closedBefore + openTotal);

    const [audit] = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "price_rule.rerated"), eq(auditLog.targetId, rule.price_rule_uuid)));
    expect(audit).toMatchObject({
      organizationUuid: f.acmeId,
      before: { events: 2, total: "0.011106" },
      after: {
        events: 2,
        total: "0.018009",
        closed_cycle_corrections: [{ billing_cycle_uuid: closed, events: 1, amount: "0.003835" }],
      },
    });

    // Run again (as after a crash): nothing moves twice.
    const current = (await loadPriceRules(db(), f.acmeId)).find(
      (r) => r.priceRuleUuid === rule.price_rule_uuid,
    );
    if (!current) throw new Error("rule not found");
    const again = await rerateAfterPriceChange(db(), current, []);
    expect(again).toMatchObject({ events: 0, corrections: [] });
    expect(await summaryCost(open)).toBe(openTotal);
  });

  it("bills a late event for the closed cycle in the open one, at its time's price, flagged in records and CSV", async () => {
    const openBefore = await summaryCost(open);
    const closedBefore = await summaryCost(closed);
    const res = await p.api.app.inject({
      method: "POST",
      url: `${USAGE_EVENTS_URL}?organization_uuid=${f.acmeId}`,
      headers: local(),
      payload: {
        events: [ev("oct-25-late", "2026-10-25T08:00:00Z", 4), ev("oct-05-late", "2026-10-05T08:00:00Z", 1)],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ accepted: 2, late: 2, rejected: [] });
    // Oct 25 is after the new price's valid_from (0.002001 × 4); Oct 5 before it (0.001234).
    expect(await summaryCost(open)).toBe(openBefore + 8_004n + 1_234n);
    expect(await summaryCost(closed)).toBe(closedBefore);
    const late = (await records(open)).filter((r) => r.late_from?.occurred_at);
    expect(late.map((r) => [r.late_from?.occurred_at, r.cost]).sort()).toEqual([
      ["2026-10-05T08:00:00.000Z", "0.001234"],
      ["2026-10-25T08:00:00.000Z", "0.008004"],
    ]);
    // Billed when it was accepted: in the open cycle.
    for (const r of late) expect(r.date >= "2026-11-01").toBe(true);
    const csv = await f.call(
      "admin",
      "GET",
      `/v1/usage/export.csv?billing_cycle_uuid=${open}&details=pricing`,
    );
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.body).toContain("2026-10-01 to 2026-11-01,2026-10-25T08:00:00.000Z");
    await expectConsistent(f.acmeId);
  });

  it("leaves events and rollups consistent when re-rating stops between pages, and finishes when run again", async () => {
    const org = "org-rerate-crash";
    await addCycle(p, org, "2026-11-01", null);
    await setPriceRule(db(), {
      organizationUuid: org,
      operation: op,
      unitPrice: "0.000011",
      validFrom: PAST,
    });
    const events = Array.from({ length: 25 }, (_, i) =>
      ev(`c-${i}`, `2026-11-${String(2 + (i % 20)).padStart(2, "0")}T0${i % 10}:00:00Z`, 1 + (i % 4)),
    );
    expect(await ingestUsage(db(), org, events)).toMatchObject({ accepted: 25, rejected: [] });
    const quantity = BigInt(events.reduce((s, e) => s + e.quantity, 0));
    // A price set without re-rating, then a re-rating that dies after two pages of 4.
    const rule = await setPriceRule(db(), {
      organizationUuid: org,
      operation: op,
      unitPrice: "0.000013",
      validFrom: new Date("2026-11-01T00:00:00Z"),
    });
    await db().execute(
      sql`update usage_events set unit_price_micros = 11, cost_micros = 11 * quantity, price_rule_uuid = ${
        (await loadPriceRules(db(), org)).find((r) => r.version === 1 && r.operation === op)?.priceRuleUuid ??
        null
      } where organization_uuid = ${org}`,
    );
    await db().execute(
      sql`update usage_daily set cost_micros_sum = 11 * quantity_sum where organization_uuid = ${org}`,
    );
    await db().execute(
      sql`update usage_daily_mid set cost_micros_sum = 11 * quantity_sum where organization_uuid = ${org}`,
    );
    await db().execute(
      sql`update usage_daily_coarse set cost_micros_sum = 11 * quantity_sum where organization_uuid = ${org}`,
    );
    // Microseconds, as bulk-loaded rows have them (a JavaScript Date keeps milliseconds): every
    // row must still be found by its page's update and read by one page only.
    await db().execute(
      sql`update usage_events set occurred_at = occurred_at + interval '123 microseconds' where organization_uuid = ${org}`,
    );
    expect(await expectConsistent(org)).toBe(11n * quantity);
    let transactions = 0;
    const dying = new Proxy(db(), {
      get(target, prop, receiver) {
        if (prop === "transaction")
          return (fn: (tx: unknown) => Promise<unknown>) => {
            transactions += 1;
            if (transactions > 2) throw new Error("crash");
            return (target as Db).transaction(fn as never);
          };
        return Reflect.get(target, prop, receiver);
      },
    }) as Db;
    await expect(reratePages(dying, org, sql`true`, null, { batch: 4 })).rejects.toThrow("crash");
    const [moved] = await q<{ n: number }>(
      sql`select count(*)::int as n from usage_events where organization_uuid = ${org} and unit_price_micros = 13`,
    );
    expect(moved?.n).toBe(8);
    // Every committed page left events and rollups agreeing.
    const partial = await expectConsistent(org);
    expect(partial > 11n * quantity && partial < 13n * quantity).toBe(true);
    // Run again: the rest, and only the rest.
    const done = await rerateAfterPriceChange(db(), rule, []);
    expect(done.events).toBe(25 - 8);
    expect(await expectConsistent(org)).toBe(13n * quantity);
  });

  it("a new price from the same valid_from replaces the one set before it, whatever their uuids", async () => {
    const org = (await p.identity.admin.createOrganization("Same Time", "same-time")).id;
    await addCycle(p, org, "2026-11-01", null);
    const from = new Date(Date.now() - 3_600_000);
    const dims = { organizationUuid: org, operation: "same-time-op", evalType: "safety" };
    await setPriceRule(db(), { ...dims, unitPrice: "0.0125", validFrom: from });
    const event = {
      ...ev("same-1", new Date(Date.now() - 600_000).toISOString(), 2),
      operation: "same-time-op",
    };
    await sendAsOperator(p, org, [event]);
    // Several prices in a row from the very same time: each replaces the last, and re-rates the event.
    for (const price of ["0.02", "0.015", "0.03", "0.011"]) {
      const rule = await setPriceRule(db(), { ...dims, unitPrice: price, validFrom: from });
      expect(rule.rerating.events).toBe(1);
      const [row] = await q<{ unit: string; rule: string }>(
        sql`select unit_price_micros::text as unit, price_rule_uuid::text as rule from usage_events
             where organization_uuid = ${org} and event_id = 'same-1'`,
      );
      expect(row).toEqual({ unit: String(parseUsd(price)), rule: rule.priceRuleUuid });
    }
    expect(await expectConsistent(org)).toBe(2n * parseUsd("0.011"));
  });
});
