// What an event is — a price adjustment (sent with its own cost) or usage priced by a rule — is
// stored when the event is, and every reader uses that fact. The cases here are the ones the
// arithmetic test (cost = quantity × unit price) got wrong: an operator charge whose explicit cost
// happens to equal quantity × the current unit price was re-rated, got a correction line when
// backfilled into a closed cycle, and was not counted as an adjustment by the summary.
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { archiveMonth, restoreMonth } from "../../server/metering/shared/partitions";
import { backends, startProduct, type TestProduct } from "./harness";
import { setPriceAndWait } from "./job-wait";
import { addCycle, PAST, sendAsOperator, USAGE_EVENTS_URL } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

type Rows<T> = { rows: T[] };
type Rec = { usage_event_uuid: string; cost: string; notes: string | null; adjustment: boolean };

describe.each(backends())("adjustments as a stored fact on $name", (backend) => {
  let p: TestProduct;
  let f: Fixture;
  let closed = "";
  let open = "";
  const op = "gen-fact";
  const db = () => p.database.db;
  const q = async <T>(text: ReturnType<typeof sql>) =>
    ((await db().execute(text)) as unknown as Rows<T>).rows;
  const local = () => ({ authorization: `Bearer ${p.identity.ctx.backendApiKey}` });
  const get = async (url: string) => {
    const res = await f.call("admin", "GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json();
  };
  const records = async (cycle: string): Promise<Rec[]> =>
    (await get(`/v1/usage/records?billing_cycle_uuid=${cycle}&page_size=100`)).records;
  const byNotes = async (cycle: string, notes: string) => {
    const rec = (await records(cycle)).find((r) => r.notes === notes);
    if (!rec) throw new Error(`no record with notes ${notes}`);
    return rec;
  };
  const setPrice = async (unitPrice: string, validFrom: string) => {
    // Its re-rating followed to its end through the operator API.
    const res = await setPriceAndWait(p.api.app, local(), {
      organization_uuid: f.acmeId,
      operation: op,
      unit_price_usd: unitPrice,
      valid_from: validFrom,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  beforeAll(async () => {
    p = await startProduct(backend);
    f = await setUpWorkspaces(p);
    await setPriceRule(db(), {
      organizationUuid: f.acmeId,
      operation: op,
      unitPrice: "0.051237",
      validFrom: PAST,
    });
    await sendAsOperator(p, f.acmeId, [
      // Usage, priced by the rule: 2 × 0.051237.
      {
        event_id: "use-1",
        occurred_at: "2026-11-05T10:00:00Z",
        operation: op,
        eval_type: "safety",
        quantity: 2,
      },
      // An operator's charge whose explicit cost is exactly quantity × the current unit price.
      {
        event_id: "charge-equal",
        occurred_at: "2026-11-06T10:00:00Z",
        operation: op,
        eval_type: "safety",
        rule_metric: "eval",
        quantity: 2,
        cost: "0.102474",
        notes: "Charge: extra judge calls",
      },
      // And a credit, which the arithmetic test did catch: the two must be counted alike.
      {
        event_id: "credit-1",
        occurred_at: "2026-11-07T10:00:00Z",
        operation: op,
        eval_type: "safety",
        cost: "-1",
        notes: "Credit: goodwill",
      },
      // Usage of the month that becomes the closed cycle.
      {
        event_id: "oct-use",
        occurred_at: "2026-10-20T10:00:00Z",
        operation: op,
        eval_type: "safety",
        quantity: 1,
      },
    ]);
    closed = await addCycle(p, f.acmeId, "2026-10-01", "2026-11-01");
    open = await addCycle(p, f.acmeId, "2026-11-01", null);
    // A charge backfilled into the closed cycle, its cost again exactly quantity × unit price.
    const res = await p.api.app.inject({
      method: "POST",
      url: `${USAGE_EVENTS_URL}?organization_uuid=${f.acmeId}&backfill=true`,
      headers: local(),
      payload: {
        events: [
          {
            event_id: "backfilled-charge",
            occurred_at: "2026-10-25T10:00:00Z",
            operation: op,
            eval_type: "safety",
            quantity: 1,
            cost: "0.051237",
            notes: "Charge: backfilled",
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().rejected).toEqual([]);
  });
  afterAll(async () => p?.dispose());

  it("stores which events are adjustments and says so in the records", async () => {
    const recs = await records(open);
    const fact = Object.fromEntries(recs.map((r) => [r.notes ?? "usage", r.adjustment]));
    expect(fact).toEqual({ usage: false, "Charge: extra judge calls": true, "Credit: goodwill": true });
    expect((await byNotes(closed, "Charge: backfilled")).adjustment).toBe(true);
  });

  it("counts every event sent with a cost as an adjustment in the summary, whatever its amount", async () => {
    const s = await get(`/v1/usage/summary?billing_cycle_uuid=${open}`);
    expect(s.adjustments).toEqual({ events: 2, count: 3, cost: "-0.897526" });
    expect(s.charges).toEqual({ events: 1, count: 2, cost: "0.102474" });
    expect(s.credits).toEqual({ events: 1, count: 1, cost: "-1.00" });
  });

  it("explains the charge as an adjustment, not as the rule's arithmetic", async () => {
    const charge = await byNotes(open, "Charge: extra judge calls");
    const res = await get(
      `/v1/usage/explain?level=event&billing_cycle_uuid=${open}&usage_event_uuid=${charge.usage_event_uuid}`,
    );
    expect(JSON.stringify(res)).toContain('"kind":"adjustment"');
  });

  it("puts adjustments under no rule in the report grouped by price rule", async () => {
    const r = await get(
      "/v1/usage/report?starting_at=2026-11-01&ending_at=2026-12-01&group_by=price_rule&bucket_width=1mo",
    );
    const rows = r.data as { price_rule_uuid: string | null; cost: string }[];
    const costOf = (rule: boolean) =>
      rows.filter((x) => (x.price_rule_uuid !== null) === rule).map((x) => x.cost);
    expect(costOf(true)).toEqual(["0.102474"]);
    expect(costOf(false)).toEqual(["-0.897526"]);
  });

  it("never re-rates an adjustment, nor bills a correction line for one in a closed cycle", async () => {
    const rule = await setPrice("0.06", "2026-10-01T00:00:00Z");
    // Open cycle: the usage event moves to 2 × 0.06; the charge and the credit stay as sent.
    expect(rule.rerating.events).toBe(1);
    const recs = await records(open);
    const cost = Object.fromEntries(recs.map((r) => [r.notes ?? "usage", r.cost]));
    expect(cost.usage).toBe("0.12");
    expect(cost["Charge: extra judge calls"]).toBe("0.102474");
    expect(cost["Credit: goodwill"]).toBe("-1.00");
    // Closed cycle: only the usage event (1 × 0.051237 → 0.06) is corrected, not the charge.
    expect(rule.rerating.corrections).toHaveLength(1);
    expect(rule.rerating.corrections[0]).toMatchObject({
      billing_cycle_uuid: closed,
      events: 1,
      amount: "0.008763",
    });
    // The correction line is an adjustment itself: a later price change leaves it alone.
    const line = (await records(open)).find(
      (r) => r.notes?.includes("correction") || r.notes?.includes("Correction"),
    );
    expect(line?.adjustment).toBe(true);
    const again = await setPrice("0.07", "2026-11-01T00:00:00Z");
    expect(again.rerating.events).toBe(1);
    const after = Object.fromEntries((await records(open)).map((r) => [r.usage_event_uuid, r.cost]));
    expect(after[line?.usage_event_uuid ?? ""]).toBe(line?.cost);
  });

  it("fills the fact for rows stored before it existed (migration 0028)", async () => {
    const flags = () =>
      q<{ event_id: string; adjustment: boolean | string }>(
        sql`select event_id, adjustment from usage_events where organization_uuid = ${f.acmeId} order by event_id`,
      );
    const before = (await flags()).map((r) => [r.event_id, String(r.adjustment)]);
    // As the rows stood before the migration: no column value yet.
    await db().execute(sql`update usage_events set adjustment = false where organization_uuid = ${f.acmeId}`);
    const migration = readFileSync(
      new URL("../../server/db/migrations/0028_usage_adjustment_fact.sql", import.meta.url),
      "utf8",
    );
    const fill = migration
      .split("--> statement-breakpoint")
      .find((s) => /^\s*UPDATE "usage_events"/m.test(s));
    expect(fill).toBeDefined();
    await db().execute(sql.raw(fill ?? ""));
    expect((await flags()).map((r) => [r.event_id, String(r.adjustment)])).toEqual(before);
  });

  it("keeps the fact through archive and restore, and fills it for a month archived before it existed", async () => {
    const octFlags = async () =>
      (
        await q<{ event_id: string; adjustment: boolean | string }>(
          sql`select event_id, adjustment from usage_events where organization_uuid = ${f.acmeId}
                and occurred_at < '2026-11-01' order by event_id`,
        )
      ).map((r) => [r.event_id, String(r.adjustment) === "true" || String(r.adjustment) === "t"]);
    expect(await octFlags()).toEqual([
      ["backfilled-charge", true],
      ["oct-use", false],
    ]);
    expect(await archiveMonth(db(), "2026-10")).toMatchObject({ status: "archived" });
    // As a month archived (and dumped) before migration 0028 comes back: without the column.
    await db().execute(sql`alter table usage_events_archive_y2026m10 drop column adjustment`);
    expect(await restoreMonth(db(), "2026-10")).toEqual({ status: "restored" });
    expect(await octFlags()).toEqual([
      ["backfilled-charge", true],
      ["oct-use", false],
    ]);
  });
});
