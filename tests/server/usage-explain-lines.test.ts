// The arithmetic of "Explain this charge" without a database: rule lines are quantity × unit price,
// adjustments are lines of their own (the ones beyond the listed few summed on one line), archived
// usage is a line, and paged parts carry the sums of the pages around them.
import { describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import { EXPLAIN_MAX_ADJUSTMENT_LINES } from "../../contract/usage-explain";
import {
  linesOf,
  pageOf,
  partOrder,
  sumOfLines,
  type UsageRow,
} from "../../server/metering/usage/explain-lines";

const row = (over: Partial<UsageRow>): UsageRow => ({
  key: "ws",
  ruleUuid: "00000000-0000-4000-8000-000000000001",
  ruleVersion: 1,
  unitPriceMicros: 12_500n,
  adjustment: false,
  eventUuid: null,
  events: 1,
  quantity: 1,
  costMicros: 12_500n,
  notes: null,
  occurredAt: null,
  ...over,
});

describe("explain lines", () => {
  it("adds rows of one rule and price into one line of quantity × unit price", () => {
    const lines = linesOf([
      row({ quantity: 3, events: 2, costMicros: 37_500n }),
      row({ quantity: 1201, events: 9, costMicros: 15_012_500n }),
      row({
        ruleVersion: 2,
        ruleUuid: "00000000-0000-4000-8000-000000000002",
        unitPriceMicros: 20_000n,
        quantity: 2,
        costMicros: 40_000n,
      }),
    ]);
    expect(lines.map((l) => [l.price_rule_version, l.quantity, l.events, l.unit_price, l.cost])).toEqual([
      [1, 1204, 11, "0.0125", "15.05"],
      [2, 2, 1, "0.02", "0.04"],
    ]);
    expect(sumOfLines(lines)).toBe(15_090_000n);
  });

  it("lists adjustments with their notes, the largest first, and sums the ones beyond the limit", () => {
    const adjustments = Array.from({ length: EXPLAIN_MAX_ADJUSTMENT_LINES + 2 }, (_, i) =>
      row({
        adjustment: true,
        eventUuid: `00000000-0000-4000-8000-0000000001${String(i).padStart(2, "0")}`,
        costMicros: BigInt(-(i + 1)) * 1_000_000n,
        notes: `credit ${i + 1}`,
      }),
    );
    const lines = linesOf([row({}), ...adjustments], 7n);
    expect(lines[0]?.kind).toBe("rule");
    expect(lines[1]).toMatchObject({ kind: "adjustment", cost: "-12.00", notes: "credit 12" });
    expect(lines.filter((l) => l.kind === "adjustment")).toHaveLength(EXPLAIN_MAX_ADJUSTMENT_LINES);
    expect(lines.at(-2)).toMatchObject({ kind: "more_adjustments", events: 2, cost: "-3.00" });
    expect(lines.at(-1)).toMatchObject({ kind: "unitemized", cost: "0.000007" });
    expect(sumOfLines(lines)).toBe(12_500n - 78_000_000n + 7n);
  });

  it("pages parts with the count and cost of the pages before and after", () => {
    const parts = [5n, 4n, 3n, 2n, 1n].map((c, i) => ({
      costMicros: c * 1_000_000n,
      label: `p${i}`,
      key: null,
    }));
    const second = pageOf(parts, 2, 2);
    expect(second.shown.map((p) => p.label)).toEqual(["p2", "p3"]);
    expect(second.earlier).toEqual({ parts: 2, cost: "9.00" });
    expect(second.later).toEqual({ parts: 1, cost: "1.00" });
    const beyond = pageOf(parts, 9, 2);
    expect(beyond.shown).toEqual([]);
    expect(beyond.earlier).toEqual({ parts: 5, cost: "15.00" });
    expect(parseUsd(beyond.later.cost)).toBe(0n);
  });

  it("orders parts by cost, then label", () => {
    const list = [
      { costMicros: 1n, label: "b", key: "2" },
      { costMicros: 2n, label: "z", key: "3" },
      { costMicros: 1n, label: "a", key: "1" },
    ].sort(partOrder);
    expect(list.map((p) => p.label)).toEqual(["z", "a", "b"]);
  });
});
