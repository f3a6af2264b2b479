import { describe, expect, it } from "vitest";
import type { Cycle } from "../../server/metering/billing/cycles";
import {
  billingTime,
  closedCycleAt,
  correctionNote,
  periodLabel,
} from "../../server/metering/ingestion/late-usage";
import {
  correctionGroups,
  mergeGroups,
  type RatedEvent,
  repriced,
  rollupDeltas,
} from "../../server/metering/pricing/rerate-logic";
import { createRuleMatcher, type PriceRule } from "../../server/metering/pricing/rule-matching";

// The pure part of re-rating and late usage: which events a new price list moves and by how much,
// the rollup deltas and correction lines those differences make, and where late usage is billed.

const ORG = "org-1";
const rule = (id: string, r: Partial<PriceRule>): PriceRule => ({
  priceRuleUuid: `00000000-0000-4000-8000-${id.padStart(12, "0")}`,
  organizationUuid: ORG,
  operation: "gen",
  evalType: null,
  modality: null,
  ruleMetric: null,
  unitPriceMicros: 0n,
  validFrom: new Date("2026-01-01T00:00:00Z"),
  validTo: null,
  ...r,
});
const old = rule("1", { unitPriceMicros: 1_234n, validTo: new Date("2026-10-15T00:00:00Z") });
const next = rule("2", { unitPriceMicros: 2_001n, validFrom: new Date("2026-10-15T00:00:00Z"), version: 2 });
const event = (id: string, at: string, quantity: number, e: Partial<RatedEvent> = {}): RatedEvent => ({
  usageEventUuid: id,
  occurredAt: new Date(at),
  occurredKey: at,
  lateOccurredAt: null,
  workspaceUuid: "ws-1",
  operation: "gen",
  evalType: "safety",
  modality: "",
  isJailbreak: false,
  hasGroundTruth: false,
  ruleMetric: "eval",
  quantity,
  unitPriceMicros: old.unitPriceMicros,
  costMicros: old.unitPriceMicros * BigInt(quantity),
  priceRuleUuid: old.priceRuleUuid,
  ...e,
});

describe("re-rating", () => {
  const after = createRuleMatcher([{ ...old }, next]);
  const before = createRuleMatcher([{ ...old, validTo: null }]);

  it("re-prices exactly the events the new price list prices differently", () => {
    const events = [
      event("a", "2026-10-10T00:00:00Z", 3), // before valid_from: unchanged
      event("b", "2026-11-05T00:00:00Z", 2),
      event("c", "2026-11-20T00:00:00Z", 7),
      // Billed in November, happened in October before valid_from: priced at its own time.
      event("d", "2026-11-21T00:00:00Z", 1, { lateOccurredAt: new Date("2026-10-01T00:00:00Z") }),
    ];
    const changes = repriced(ORG, events, after, 1_000_000_000_000n);
    expect(
      changes.map((c) => [c.event.usageEventUuid, c.beforeMicros, c.afterMicros, c.rule.version]),
    ).toEqual([
      ["b", 2_468n, 4_002n, 2],
      ["c", 8_638n, 14_007n, 2],
    ]);
    // An event already at its price, or whose new cost passes the limit, is left alone.
    expect(
      repriced(
        ORG,
        [
          event("e", "2026-11-05T00:00:00Z", 2, {
            priceRuleUuid: next.priceRuleUuid,
            unitPriceMicros: 2_001n,
          }),
        ],
        after,
        10n ** 12n,
      ),
    ).toEqual([]);
    expect(repriced(ORG, events, after, 5_000n).map((c) => c.event.usageEventUuid)).toEqual(["b"]);
  });

  it("moves the rollups by the differences only: no count, no quantity", () => {
    const changes = repriced(
      ORG,
      [event("b", "2026-11-05T00:00:00Z", 2), event("c", "2026-11-05T09:00:00Z", 7)],
      after,
      10n ** 12n,
    );
    expect(rollupDeltas(ORG, changes)).toEqual([
      expect.objectContaining({ day: "2026-11-05", eventCount: 0, quantitySum: 0, costMicrosSum: 6_903n }),
    ]);
  });

  it("groups a closed cycle's differences per workspace and dimensions, by the rules before and after", () => {
    const events = [
      event("a", "2026-10-10T00:00:00Z", 3),
      event("b", "2026-10-20T00:00:00Z", 5),
      event("c", "2026-10-21T00:00:00Z", 1, { workspaceUuid: null }),
      event("d", "2026-10-22T00:00:00Z", 2),
    ];
    const groups = correctionGroups(ORG, events, before, after);
    expect(groups.map((g) => [g.workspaceUuid, g.events, g.deltaMicros])).toEqual([
      [null, 1, 767n],
      ["ws-1", 2, 767n * 7n],
    ]);
    // Pages add up; zero sums are dropped only at the end.
    const merged = mergeGroups(
      correctionGroups(ORG, events.slice(0, 2), before, after),
      correctionGroups(ORG, events.slice(2), before, after),
    );
    expect(merged.map((g) => [g.workspaceUuid, g.events, g.deltaMicros])).toEqual([
      [null, 1, 767n],
      ["ws-1", 2, 767n * 7n],
    ]);
  });
});

describe("late usage", () => {
  const cycles: Cycle[] = [
    { billingCycleUuid: "c-1", organizationUuid: ORG, startDate: "2026-09-01", endDate: "2026-10-01" },
    { billingCycleUuid: "c-2", organizationUuid: ORG, startDate: "2026-10-01", endDate: "2026-11-01" },
    { billingCycleUuid: "c-3", organizationUuid: ORG, startDate: "2026-11-01", endDate: null },
  ];

  it("finds the closed cycle of a day, at midnight UTC", () => {
    expect(closedCycleAt(cycles, "2026-10-31")?.billingCycleUuid).toBe("c-2");
    expect(closedCycleAt(cycles, "2026-11-01")).toBeUndefined();
    expect(closedCycleAt(cycles, "2026-08-31")).toBeUndefined();
  });

  it("bills now, or after the last closed cycle when that ends later", () => {
    const now = new Date("2026-11-27T10:00:00Z");
    expect(billingTime(cycles, now)).toEqual(now);
    const closedLate = [{ ...cycles[0], endDate: "2026-12-01" } as Cycle];
    expect(billingTime(closedLate, now)).toEqual(new Date("2026-12-01T00:00:00Z"));
  });

  it("names the closed cycle in the correction line", () => {
    expect(periodLabel("2026-10-01", "2026-11-01")).toBe("Oct 1 – Nov 1, 2026");
    expect(periodLabel("2026-12-01", "2027-01-01")).toBe("Dec 1, 2026 – Jan 1, 2027");
    expect(correctionNote(cycles[1] as Cycle, next, 14)).toBe(
      `Price correction for Oct 1 – Nov 1, 2026 (closed billing cycle c-2): price rule ${next.priceRuleUuid} version 2, 14 events`,
    );
  });
});
