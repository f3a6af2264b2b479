import { describe, expect, it } from "vitest";
import type { ComparedRun } from "../../contract/eval-run-outcomes";
import {
  comparePath,
  comparisonCsv,
  passRateDifference,
  passRatePercent,
  signedMoney,
} from "../../src/lib/eval-run-compare";

const run = (id: string, over: Partial<ComparedRun> = {}): ComparedRun => ({
  eval_run_uuid: id,
  eval_name: "Jailbreak Sweep",
  eval_type: "jailbreak",
  workspace_uuid: null,
  started_at: "2026-12-01T08:00:00.000Z",
  finished_at: null,
  events: 4,
  cost: "1.371918",
  cost_by_operation: [],
  cost_by_eval_type: [],
  outcomes: { passed: 7, failed: 2, errored: 1 },
  pass_rate: "0.700000",
  cost_per_passed_case: "0.195988",
  cost_by_role: { generation: "1.33118", scoring: "0.040738" },
  difference: { cost: "0.00", events: 0, pass_rate: "0.000000", cost_per_passed_case: "0.00" },
  ...over,
});

describe("eval run comparison texts", () => {
  it("shows a pass rate as a percentage from its digits, halves up", () => {
    expect(passRatePercent("0.700000")).toBe("70.0%");
    expect(passRatePercent("0.833333")).toBe("83.3%");
    expect(passRatePercent("0.999950")).toBe("100.0%");
    expect(passRatePercent("0.000449")).toBe("0.0%");
    expect(passRatePercent("1.000000")).toBe("100.0%");
    expect(passRatePercent(null)).toBe("-");
    expect(passRateDifference("-0.050000")).toBe("-5.0 pts");
    expect(passRateDifference("0.125000")).toBe("+12.5 pts");
    expect(passRateDifference("0.000000")).toBe("0.0 pts");
    expect(signedMoney("$1.21", "1.209401")).toBe("+$1.21");
    expect(signedMoney("-$0.05", "-0.05")).toBe("-$0.05");
  });

  it("puts every run id of the comparison in the address, however it is spelt", () => {
    const path = comparePath("/eval-runs/compare", ["run a", "b&c=d", "é"], "cyc-1");
    const q = new URL(path, "http://x").searchParams;
    expect(q.getAll("eval_run_uuid")).toEqual(["run a", "b&c=d", "é"]);
    expect(q.get("billing_cycle_uuid")).toBe("cyc-1");
  });

  it("writes the comparison as CSV with exact figures, quoting and defusing text", () => {
    const csv = comparisonCsv([
      run("r1"),
      run("=cmd,1", {
        outcomes: null,
        pass_rate: null,
        cost_per_passed_case: null,
        difference: { cost: "-1.2", events: -1, pass_rate: null, cost_per_passed_case: null },
      }),
    ]);
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "Run ID,Eval,Eval Type,Started,Finished,Events,Cost,Generation Cost,Scoring Cost,Passed,Failed,Errored,Pass Rate,Cost per Passed Case,Cost Difference,Events Difference,Pass Rate Difference,Cost per Passed Case Difference",
    );
    expect(lines[1]).toBe(
      "r1,Jailbreak Sweep,jailbreak,2026-12-01T08:00:00.000Z,,4,1.371918,1.33118,0.040738,7,2,1,0.700000,0.195988,0.00,0,0.000000,0.00",
    );
    expect(lines[2]?.startsWith(`"'=cmd,1",`)).toBe(true);
    expect(lines[2]?.endsWith(",,,,,-1.2,-1,,")).toBe(true);
  });
});
