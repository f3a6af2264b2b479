import { describe, expect, it } from "vitest";
import type { BudgetSimulation } from "../../contract/budget-simulation";
import {
  alertsSentence,
  blocksSentence,
  duration,
  previewChart,
} from "../../src/components/budgets/budget-preview-text";

const day = (d: string, cycle: string, blocked = false) => ({
  day: d,
  spend: "0.00",
  cycle_spend: cycle,
  blocked,
});
const sim = (over: Partial<BudgetSimulation> = {}): BudgetSimulation => ({
  scope: "organization",
  workspace_uuid: null,
  amount: "100.00",
  thresholds: [50, 100],
  hard_limit: true,
  from: "2026-10-01",
  to: "2026-10-04",
  days: [
    day("2026-10-01", "40"),
    day("2026-10-02", "60"),
    day("2026-10-03", "120", true),
    day("2026-10-04", "130", true),
  ],
  alerts: [
    { threshold: 50, cycle_start: "2026-10-01", day: "2026-10-02", spent: "60.00" },
    { threshold: 100, cycle_start: "2026-10-01", day: "2026-10-03", spent: "120.00" },
  ],
  blocks: [
    {
      cycle_start: "2026-10-01",
      reached_on: "2026-10-03",
      from: "2026-10-04T00:00:00.000Z",
      until: "2026-10-05T03:00:00.000Z",
      hours: 27,
      ongoing: true,
      runs_refused: 1,
      spend_avoided: "10.00",
    },
  ],
  runs_refused: 1,
  spend_avoided: "10.00",
  ...over,
});

describe("budget preview text", () => {
  it("lists the alerts by day, and says so when none would have fired", () => {
    expect(alertsSentence(sim())).toBe("2 alerts in the last 4 days: 50% on Oct 2, 100% on Oct 3.");
    expect(alertsSentence(sim({ alerts: [] }))).toBe(
      "No threshold would have been reached in the last 4 days.",
    );
  });

  it("sums the blocked time, runs and spend, and is silent without a hard limit", () => {
    expect(blocksSentence(sim())).toBe(
      "The hard limit would have blocked new work for 1 day 3 h in 1 period (and would be blocking it now): 1 run refused, up to $10.00 of spend avoided.",
    );
    expect(blocksSentence(sim({ blocks: [], runs_refused: 0 }))).toBe(
      "The hard limit would never have blocked new work.",
    );
    expect(blocksSentence(sim({ hard_limit: false }))).toBeNull();
    expect([duration(0.5), duration(5), duration(48)]).toEqual(["under an hour", "5 h", "2 days"]);
  });

  it("scales the chart to the highest of spend and thresholds, and joins blocked days into one band", () => {
    const chart = previewChart(sim());
    expect(chart.top).toBeCloseTo(143);
    expect(chart.points.map((p) => p.x)).toEqual([0, 1 / 3, 2 / 3, 1]);
    expect(chart.points[3]?.y).toBeCloseTo(130 / 143);
    expect(chart.lines.map((l) => l.label)).toEqual(["50%", "100%"]);
    expect(chart.blocked).toEqual([{ from: 0.5, to: 1 }]);
  });
});
