import { describe, expect, it } from "vitest";
import { cycleOf, replayBudget } from "../../server/metering/budgets/replay";

const usd = (n: number) => BigInt(Math.round(n * 1_000_000));
const NOW = new Date("2026-03-20T12:00:00Z");
const daily = (entries: Record<string, number>) =>
  new Map(Object.entries(entries).map(([d, v]) => [d, usd(v)]));

describe("budget replay", () => {
  it("fires each threshold once per cycle on the day spend reaches it, and restarts with the next cycle", () => {
    const r = replayBudget({
      from: "2026-02-01",
      to: "2026-03-20",
      cycles: [],
      daily: daily({
        "2026-02-03": 40,
        "2026-02-10": 45,
        "2026-02-11": -30,
        "2026-02-12": 40,
        "2026-03-05": 60,
      }),
      amount: usd(100),
      thresholds: [100, 50, 80],
      hardLimit: false,
      now: NOW,
    });
    // 80 % reached on the 10th (85), a credit brings spend to 55, back to 95 on the 12th: no second 80 %.
    expect(r.alerts.map((a) => `${a.cycleStart} ${a.threshold} ${a.day}`)).toEqual([
      "2026-02-01 50 2026-02-10",
      "2026-02-01 80 2026-02-10",
      "2026-03-01 50 2026-03-05",
    ]);
    expect(r.blocks).toEqual([]);
    expect(r.days).toHaveLength(28 + 20);
    expect(r.days.find((d) => d.day === "2026-02-12")?.cycleSpend).toBe(usd(95));
    expect(r.days.find((d) => d.day === "2026-03-01")?.cycleSpend).toBe(0n);
  });

  it("blocks from the end of the day the amount is reached until the cycle ends, and counts the spend after it", () => {
    const r = replayBudget({
      from: "2026-02-15",
      to: "2026-03-20",
      cycles: [
        { start: "2026-01-15", end: "2026-02-15" },
        { start: "2026-02-15", end: null },
      ],
      daily: daily({ "2026-02-20": 99.99, "2026-02-21": 0.02, "2026-02-22": 5, "2026-03-02": 7 }),
      amount: usd(100),
      thresholds: [100],
      hardLimit: true,
      now: NOW,
    });
    expect(r.alerts.map((a) => a.day)).toEqual(["2026-02-21"]);
    expect(r.blocks).toEqual([
      {
        cycleStart: "2026-02-15",
        reachedOn: "2026-02-21",
        from: new Date("2026-02-22T00:00:00Z"),
        until: NOW, // the open cycle: still blocked now
        spendAvoided: usd(12),
        ongoing: true,
      },
    ]);
    expect(r.days.filter((d) => d.blocked).map((d) => d.day)[0]).toBe("2026-02-21");
  });

  it("counts spend before the window in the window's first cycle, and a credit ends a block", () => {
    const r = replayBudget({
      from: "2026-03-10",
      to: "2026-03-20",
      cycles: [],
      daily: daily({ "2026-03-02": 120, "2026-03-12": -50, "2026-03-15": 10 }),
      amount: usd(100),
      thresholds: [50, 100],
      hardLimit: true,
      now: NOW,
    });
    // Both thresholds fired on the 2nd, before the window: not shown, and not fired again.
    expect(r.alerts).toEqual([]);
    expect(r.blocks.map((b) => [b.reachedOn, b.from.toISOString(), b.until.toISOString()])).toEqual([
      ["2026-03-02", "2026-03-10T00:00:00.000Z", "2026-03-13T00:00:00.000Z"],
    ]);
    expect(r.days[0]?.cycleSpend).toBe(usd(120));
  });

  it("fills the time outside stored cycles with calendar months that never overlap them", () => {
    const cycles = [{ start: "2026-02-10", end: "2026-03-10" }];
    expect(cycleOf(cycles, "2026-02-05")).toEqual({ start: "2026-02-01", end: "2026-02-10" });
    expect(cycleOf(cycles, "2026-03-09")).toEqual({ start: "2026-02-10", end: "2026-03-10" });
    expect(cycleOf(cycles, "2026-03-12")).toEqual({ start: "2026-03-10", end: "2026-04-01" });
  });
});
