import { describe, expect, it } from "vitest";
import type { BillingCycle } from "../../contract/billing-cycle-schema";
import type { SeriesBucket } from "../../contract/usage-schemas";
import { ADJUSTMENTS_LABEL, chartData } from "../../src/lib/billing/chart";
import { ADJUSTMENT_COLOR, EVAL_TYPE_COLORS, evalTypeColor } from "../../src/lib/billing/colors";
import { balanceCaption, usageOnly } from "../../src/lib/billing/totals";

/** A bucket's or eval type's adjustments when it has none. */
const NONE = { events: 0, count: 0, price: "0.00" };

describe("eval type colours", () => {
  it("gives an eval type one colour, by raw value or label, whatever else is shown", () => {
    expect(evalTypeColor("safety")).toBe(EVAL_TYPE_COLORS.Safety);
    expect(evalTypeColor("Safety")).toBe(EVAL_TYPE_COLORS.Safety);
    expect(evalTypeColor("image_safety")).toBe(evalTypeColor("Image Safety"));
    expect(evalTypeColor("hallucination")).toBe(evalTypeColor("accuracy"));
    expect(evalTypeColor("toxicity")).toBe(evalTypeColor("toxicity"));
    const known = new Set(Object.values(EVAL_TYPE_COLORS));
    expect(known.size).toBe(Object.keys(EVAL_TYPE_COLORS).length);
    expect(known.has(evalTypeColor("toxicity"))).toBe(false);
    expect(known.has(ADJUSTMENT_COLOR)).toBe(false);
  });

  it("keeps the colour in the chart when the order by cost changes", () => {
    const bucket = (safety: string, jailbreak: string): SeriesBucket => ({
      date: "2026-01-04",
      events: 2,
      total_count: 2,
      total_price: "0",
      adjustments: NONE,
      eval_types: [
        { eval_type: "jailbreak", events: 1, count: 1, price: jailbreak, adjustments: NONE },
        { eval_type: "safety", events: 1, count: 1, price: safety, adjustments: NONE },
      ],
    });
    const a = chartData([bucket("5", "1")], "daily", "cost");
    const b = chartData([bucket("1", "5")], "daily", "cost");
    expect(a.evalTypes).toEqual(["Safety", "Jailbreak"]);
    expect(b.evalTypes).toEqual(["Jailbreak", "Safety"]);
    const colorOf = (d: typeof a, t: string) => d.colors[d.evalTypes.indexOf(t)];
    expect(colorOf(a, "Safety")).toBe(colorOf(b, "Safety"));
    expect(colorOf(a, "Safety")).toBe(evalTypeColor("safety"));
    expect(colorOf(b, "Jailbreak")).toBe(evalTypeColor("jailbreak"));
  });
});

describe("credits and adjustments", () => {
  const buckets: SeriesBucket[] = [
    {
      date: "2026-01-04",
      events: 3,
      total_count: 4,
      total_price: "-298.50",
      adjustments: { events: 1, count: 1, price: "-300.00" },
      eval_types: [
        {
          eval_type: "safety",
          events: 2,
          count: 3,
          price: "-299.00",
          adjustments: { events: 1, count: 1, price: "-300.00" },
        },
        { eval_type: "jailbreak", events: 1, count: 1, price: "0.50", adjustments: NONE },
      ],
    },
  ];

  it("draws usage per eval type and the credits as their own series", () => {
    const cost = chartData(buckets, "daily", "cost");
    expect(cost.evalTypes).toEqual(["Safety", "Jailbreak", ADJUSTMENTS_LABEL]);
    expect(cost.colors.at(-1)).toBe(ADJUSTMENT_COLOR);
    expect(cost.rows.map((r) => [r.evalType, r.value, r.adjustment ?? false])).toEqual([
      ["Safety", 1, false],
      ["Jailbreak", 0.5, false],
      [ADJUSTMENTS_LABEL, -300, true],
    ]);
    const usage = chartData(buckets, "daily", "usage");
    expect(usage.evalTypes).toEqual(["Safety", "Jailbreak"]);
    expect(usage.rows.map((r) => [r.evalType, r.value])).toEqual([
      ["Safety", 2],
      ["Jailbreak", 1],
    ]);
  });

  it("takes the adjustments out of a summary row", () => {
    expect(
      usageOnly({
        events: 4,
        count: 14,
        cost: "-292.00",
        adjustments: { events: 2, count: 2, cost: "-295" },
      }),
    ).toEqual({ events: 2, count: 12, cost: 3_000_000n });
    expect(
      usageOnly({ events: 1, count: 1, cost: "2.50", adjustments: { events: 0, count: 0, cost: "0.00" } }),
    ).toEqual({
      events: 1,
      count: 1,
      cost: 2_500_000n,
    });
  });
});

describe("balance caption", () => {
  const cycle = (paid: string, remaining: string, unattributed = "0"): BillingCycle => ({
    billing_cycle_uuid: "c",
    billing_cycle_start_date: "2026-01-01",
    billing_cycle_end_date: "2026-02-01",
    paid_amount_usd: paid,
    total_cost: "100",
    unattributed_cost: unattributed,
    workspace_groups: [{ group_name: "Research", total_cost: "100", balance_remaining: remaining }],
    usage_breakdown: { usage_events: [] },
  });

  it("says what the figure is and never calls a cycle paid in full outstanding", () => {
    expect(balanceCaption(cycle("150.00", "100.00", "50.00"))).toBe("Beyond prepaid credit · paid in full");
    expect(balanceCaption(cycle("40.00", "100.00"))).toBe("Beyond prepaid credit · $60.00 unpaid");
    expect(balanceCaption(cycle("0", "100.00"))).toBe("Beyond prepaid credit · unpaid");
    expect(balanceCaption(cycle("0", "-20.00"))).toBe("Nothing beyond prepaid credit");
    expect(balanceCaption(cycle("0", "-20.00", "-5.00"))).toBe("Credit remaining");
  });
});
