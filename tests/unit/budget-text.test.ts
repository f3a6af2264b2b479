// The budget views' words and numbers: the banner's sentence, percentages, the bar's geometry and
// the dialog's rules and request body.
import { describe, expect, it } from "vitest";
import type { BudgetAlert } from "../../contract/budgets";
import {
  amountProblem,
  budgetFormValues,
  budgetRequest,
  newBudgetValues,
  thresholdsProblem,
} from "../../src/components/budgets/budget-form-values";
import {
  alertSentence,
  bannerAlerts,
  barGeometry,
  budgetOwner,
  budgetStatus,
  formatPercent,
  spentOfAmount,
} from "../../src/components/budgets/budget-text";

type Line = Pick<BudgetAlert, "budget_uuid" | "scope" | "workspace_name" | "threshold" | "state" | "amount">;

const alert = (over: Partial<Line> & { budget_uuid: string }): Line => ({
  scope: "workspace",
  workspace_name: "Alpha",
  threshold: 80,
  state: "triggered",
  amount: "100",
  ...over,
});

describe("budget text", () => {
  it("says who used how much of which monthly budget, money to the cent", () => {
    expect(alertSentence(alert({ budget_uuid: "b1" }))).toBe(
      "Workspace Alpha has used 80% of its $100.00 monthly budget.",
    );
    expect(
      alertSentence({ scope: "organization", workspace_name: null, threshold: 100, amount: "1234.5" }),
    ).toBe("Your organization has used 100% of its $1,234.50 monthly budget.");
    expect(budgetOwner({ scope: "workspace", workspace_name: "  " })).toBe("Unnamed workspace");
    expect(spentOfAmount({ spent: "42.105", amount: "100" })).toBe("$42.11 of $100.00");
  });

  it("keeps one banner line per budget, its highest triggered threshold, organization first", () => {
    const lines = bannerAlerts([
      alert({ budget_uuid: "b", workspace_name: "Zeta", threshold: 50 }),
      alert({ budget_uuid: "a", workspace_name: "Alpha", threshold: 80 }),
      alert({ budget_uuid: "a", workspace_name: "Alpha", threshold: 100 }),
      alert({ budget_uuid: "a", workspace_name: "Alpha", threshold: 120, state: "resolved" }),
      alert({ budget_uuid: "o", scope: "organization", workspace_name: null, threshold: 50 }),
    ]);
    expect(lines.map((l) => [l.budget_uuid, l.threshold])).toEqual([
      ["o", 50],
      ["a", 100],
      ["b", 50],
    ]);
    expect(bannerAlerts(undefined)).toEqual([]);
  });

  it("never rounds a percentage up to a threshold not reached", () => {
    expect(formatPercent(79.99)).toBe("79.9%");
    expect(formatPercent(80)).toBe("80%");
    expect(formatPercent(12.5)).toBe("12.5%");
    expect(formatPercent(0)).toBe("0%");
    expect(formatPercent(-3)).toBe("0%");
    expect(formatPercent(Number.NaN)).toBe("0%");
  });

  it("draws the bar to 100% or to the highest threshold beyond it", () => {
    expect(barGeometry(40, [50, 80, 100])).toEqual({
      fill: 40,
      marks: [
        { threshold: 50, at: 50 },
        { threshold: 80, at: 80 },
        { threshold: 100, at: 100 },
      ],
    });
    const wide = barGeometry(100, [100, 200]);
    expect(wide.fill).toBe(50);
    expect(wide.marks.map((m) => m.at)).toEqual([50, 100]);
    expect(barGeometry(350, [80]).fill).toBe(100);
  });

  it("colours a budget by spend: over the amount, past a threshold, or fine", () => {
    expect(budgetStatus({ percent_used: 100, triggered_thresholds: [80, 100] })).toBe("over");
    expect(budgetStatus({ percent_used: 85, triggered_thresholds: [80] })).toBe("warning");
    expect(budgetStatus({ percent_used: 85, triggered_thresholds: [] })).toBe("normal");
  });
});

describe("budget dialog values", () => {
  it("accepts dollars and cents, and refuses the rest with a sentence", () => {
    for (const ok of ["100", "250.5", "$1,000.00", " 0.01 "]) expect(amountProblem(ok)).toBeNull();
    expect(amountProblem("")).toBe("Enter the monthly budget in USD");
    expect(amountProblem("abc")).toBe("Enter an amount like 100 or 250.50");
    expect(amountProblem("10.001")).toBe("Enter an amount like 100 or 250.50");
    expect(amountProblem("-5")).toBe("Enter an amount like 100 or 250.50");
    expect(amountProblem("0.00")).toBe("The budget must be more than $0.00");
    expect(amountProblem("1000000000.01")).toBe("The budget can be at most $1,000,000,000.00");
  });

  it("accepts 1 to 10 distinct whole percents from 1 to 1000", () => {
    expect(thresholdsProblem(["50", "80%", "100"])).toBeNull();
    expect(thresholdsProblem([])).toBe("Add at least one alert threshold");
    expect(thresholdsProblem(["80", "eighty"])).toBe('"eighty" is not a whole percent');
    expect(thresholdsProblem(["12.5"])).toBe('"12.5" is not a whole percent');
    expect(thresholdsProblem(["0"])).toBe("Thresholds are between 1% and 1000%");
    expect(thresholdsProblem(["1001"])).toBe("Thresholds are between 1% and 1000%");
    expect(thresholdsProblem(["80", "80"])).toBe("Each threshold can be given once");
    expect(thresholdsProblem(Array.from({ length: 11 }, (_, i) => String(i + 1)))).toBe(
      "At most 10 thresholds",
    );
  });

  it("sends an exact amount and ascending thresholds; an organization budget names no workspace", () => {
    expect(
      budgetRequest({
        scope: "workspace",
        workspace_uuid: "ws-1",
        amount: "$1,250.5",
        thresholds: ["100", "80%"],
        hard_limit: true,
      }),
    ).toEqual({
      scope: "workspace",
      workspace_uuid: "ws-1",
      amount: "1250.50",
      thresholds: [80, 100],
      hard_limit: true,
    });
    expect(budgetRequest({ ...newBudgetValues(), workspace_uuid: "ws-1", amount: "5" })).toMatchObject({
      scope: "organization",
      workspace_uuid: null,
      thresholds: [50, 80, 100],
      hard_limit: false,
    });
    expect(newBudgetValues("ws-9")).toMatchObject({ scope: "workspace", workspace_uuid: "ws-9" });
    expect(newBudgetValues(undefined, true)).toMatchObject({ scope: "workspace", workspace_uuid: null });
    expect(
      budgetFormValues({
        scope: "workspace",
        workspace_uuid: "ws-1",
        amount: "100",
        thresholds: [80, 100],
        hard_limit: true,
      }),
    ).toEqual({
      scope: "workspace",
      workspace_uuid: "ws-1",
      amount: "100.00",
      thresholds: ["80", "100"],
      hard_limit: true,
    });
  });
});
