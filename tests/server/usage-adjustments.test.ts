// Credits and other price adjustments in the Usage Summary and the series: the sums stay as they
// were (net of adjustments), and every row tells which part of it is adjustments, so a client can
// show usage and credits apart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { backends, startProduct, type TestProduct } from "./harness";
import { addCycle, PAST, sendAsOperator } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

describe.each(backends())("usage adjustments on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  let cycle = "";

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    const db = p.database.db;
    await setPriceRule(db, { operation: "generation", unitPrice: "0.50", validFrom: PAST });
    await setPriceRule(db, { operation: "scoring", unitPrice: "0.25", validFrom: PAST });
    const redTeam = await fx.idOf("Red Team");
    const at = (day: number) => `2026-03-${String(day).padStart(2, "0")}T12:00:00Z`;
    await sendAsOperator(p, fx.acmeId, [
      { event_id: "u-1", occurred_at: at(2), operation: "scoring", eval_type: "safety", quantity: 4 },
      { event_id: "u-2", occurred_at: at(2), operation: "generation", eval_type: "safety", quantity: 2 },
      { event_id: "u-3", occurred_at: at(3), operation: "scoring", eval_type: "jailbreak", quantity: 8 },
      // A $300 credit and a $5 charge, both on scoring: the tile must not turn negative.
      {
        event_id: "credit-1",
        occurred_at: at(3),
        operation: "scoring",
        eval_type: "safety",
        workspace_uuid: redTeam,
        cost: "-300",
        notes: "Credit: volume discount",
      },
      {
        event_id: "charge-1",
        occurred_at: at(9),
        operation: "scoring",
        eval_type: "jailbreak",
        cost: "5",
        notes: "Manual charge",
      },
    ]);
    cycle = await addCycle(p, fx.acmeId, "2026-03-01", "2026-04-01");
  });
  afterAll(async () => p?.dispose());

  const get = async (url: string) => {
    const res = await fx.call("admin", "GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json();
  };

  it("tells the adjustments apart in the summary, keeping the net sums", async () => {
    const s = await get(`/v1/usage/summary?billing_cycle_uuid=${cycle}`);
    // Usage: 4×0.25 + 2×0.50 + 8×0.25 = 4.00; adjustments -300 + 5 = -295.
    expect(s.totals).toEqual({ events: 5, count: 16, cost: "-291.00" });
    expect(s.adjustments).toEqual({ events: 2, count: 2, cost: "-295.00" });
    expect(s.credits).toEqual({ events: 1, count: 1, cost: "-300.00" });
    expect(s.charges).toEqual({ events: 1, count: 1, cost: "5.00" });
    const scoring = s.by_operation.find((o: { operation: string }) => o.operation === "scoring");
    expect(scoring).toMatchObject({
      events: 4,
      count: 14,
      cost: "-292.00",
      adjustments: { events: 2, count: 2, cost: "-295.00" },
    });
    const generation = s.by_operation.find((o: { operation: string }) => o.operation === "generation");
    expect(generation.adjustments).toEqual({ events: 0, count: 0, cost: "0.00" });
    const safety = s.by_eval_type.find((t: { eval_type: string }) => t.eval_type === "safety");
    expect(safety).toMatchObject({ cost: "-298.00", adjustments: { events: 1, cost: "-300.00" } });
    const redTeam = s.by_workspace.find((w: { workspace_name: string }) => w.workspace_name === "Red Team");
    expect(redTeam).toMatchObject({ cost: "-300.00", adjustments: { events: 1, cost: "-300.00" } });

    // Filters apply to the adjustments as to the rest.
    const gen = await get(`/v1/usage/summary?billing_cycle_uuid=${cycle}&operation=generation`);
    expect(gen.adjustments).toEqual({ events: 0, count: 0, cost: "0.00" });
    const found = await get(`/v1/usage/summary?billing_cycle_uuid=${cycle}&search=volume`);
    expect(found.adjustments).toEqual({ events: 1, count: 1, cost: "-300.00" });
  });

  it("tells the adjustments apart in every bucket of the series", async () => {
    const s = await get(`/v1/usage/series?billing_cycle_uuid=${cycle}&grouping=daily`);
    const day = (d: string) => s.buckets.find((b: { date: string }) => b.date === d);
    expect(day("2026-03-02").adjustments).toEqual({ events: 0, count: 0, price: "0.00" });
    const third = day("2026-03-03");
    expect(third.total_price).toBe("-298.00");
    expect(third.adjustments).toEqual({ events: 1, count: 1, price: "-300.00" });
    expect(third.eval_types).toEqual([
      {
        eval_type: "jailbreak",
        events: 1,
        count: 8,
        price: "2.00",
        adjustments: { events: 0, count: 0, price: "0.00" },
      },
      {
        eval_type: "safety",
        events: 1,
        count: 1,
        price: "-300.00",
        adjustments: { events: 1, count: 1, price: "-300.00" },
      },
    ]);
    expect(day("2026-03-09").adjustments).toEqual({ events: 1, count: 1, price: "5.00" });
    const monthly = await get(`/v1/usage/series?billing_cycle_uuid=${cycle}&grouping=monthly`);
    expect(monthly.buckets[0].adjustments).toEqual({ events: 2, count: 2, price: "-295.00" });
  });
});
