// "Explain this charge" in the console without rendering: the drill-down in the address (tolerant of
// damaged links, leaving the page's own parameters alone), the API query, the texts of the lines
// and the footer's sums.
import { describe, expect, it } from "vitest";
import type { ExplainLine, UsageExplain } from "../../contract/usage-explain";
import { searchWith } from "../../src/lib/address-query";
import {
  arithmeticText,
  explainParams,
  explainQuery,
  formatExact,
  linesCheck,
  lineTitle,
  parseExplain,
  partsCheck,
  sameExplain,
  TOP,
} from "../../src/lib/billing/explain";

/** `params` with the drill-down written over its parameters, as the page's address writes it. */
const writeExplain = (view: Parameters<typeof explainParams>[0], params: URLSearchParams) =>
  new URLSearchParams(searchWith(params.toString(), explainParams(view)));

const WS = "0c5e0000-0000-4000-8000-000000000001";
const EV = "0c5e0000-0000-4000-8000-000000000002";

const line = (over: Partial<ExplainLine>): ExplainLine => ({
  kind: "rule",
  price_rule_uuid: "9f1d2c3b-0000-4000-8000-000000000003",
  price_rule_version: 2,
  unit_price: "0.0125",
  quantity: 1204,
  events: 12,
  cost: "15.05",
  notes: null,
  usage_event_uuid: null,
  occurred_at: null,
  ...over,
});

describe("explain in the address", () => {
  it("reads and writes each level, keeping the page's other parameters", () => {
    const page = new URLSearchParams("period=abc&eval_type=safety");
    const run = { ...TOP, level: "eval_run" as const, workspace_uuid: WS, eval_run_uuid: "run-7" };
    const written = writeExplain({ node: run, page: 3 }, page);
    expect(written.toString()).toBe(
      `period=abc&eval_type=safety&explain=eval_run&explain_workspace=${WS}&explain_run=run-7&explain_page=3`,
    );
    expect(parseExplain(written)).toEqual({ node: run, page: 3 });
    expect(writeExplain(null, written).toString()).toBe("period=abc&eval_type=safety");
    // The usage without a workspace, and without a run: the parameters are left out.
    const none = { ...TOP, level: "eval_run" as const };
    expect(parseExplain(writeExplain({ node: none, page: 1 }, new URLSearchParams()))).toEqual({
      node: none,
      page: 1,
    });
  });

  it("tells the same place from another", () => {
    const group = { node: { ...TOP, level: "group" as const, group: "Research" }, page: 1 };
    expect(sameExplain(group, { ...group, node: { ...group.node } })).toBe(true);
    expect(sameExplain(group, { ...group, page: 2 })).toBe(false);
    expect(sameExplain(group, { ...group, node: { ...group.node, group: "Other" } })).toBe(false);
    expect(sameExplain(null, null)).toBe(true);
    expect(sameExplain(null, { node: TOP, page: 1 })).toBe(false);
  });

  it("opens the total for an incomplete node and stays closed for an unknown level", () => {
    expect(parseExplain(new URLSearchParams("explain=group"))).toEqual({ node: TOP, page: 1 });
    expect(parseExplain(new URLSearchParams("explain=event&explain_event=nope"))).toEqual({
      node: TOP,
      page: 1,
    });
    expect(parseExplain(new URLSearchParams("explain=planet"))).toBeNull();
    expect(parseExplain(new URLSearchParams(""))).toBeNull();
    expect(
      parseExplain(new URLSearchParams("explain=workspace&explain_workspace=x&explain_page=-2")),
    ).toEqual({
      node: { ...TOP, level: "workspace" },
      page: 1,
    });
    expect(
      parseExplain(new URLSearchParams(`explain=event&explain_event=${EV.toUpperCase()}`))?.node,
    ).toEqual({
      ...TOP,
      level: "event",
      usage_event_uuid: EV,
    });
  });

  it("asks the API for the node, its page and the page size", () => {
    expect(explainQuery("c-1", { ...TOP, level: "group", group: "default" }, 2)).toEqual({
      billing_cycle_uuid: "c-1",
      level: "group",
      group: "default",
      page: "2",
      page_size: "50",
    });
  });
});

describe("explain texts", () => {
  it("shows a rule line's arithmetic with exact amounts", () => {
    expect(arithmeticText(line({}))).toBe("1,204 × $0.0125 = $15.05");
    expect(arithmeticText(line({ quantity: 3, cost: "0.0375" }))).toBe("3 × $0.0125 = $0.0375");
    expect(lineTitle(line({}))).toBe("Price rule 9f1d2c3b v2");
    expect(lineTitle(line({ price_rule_uuid: null }))).toBe("Priced without a rule");
    expect(lineTitle(line({ kind: "more_adjustments", events: 3 }))).toBe("3 more adjustments");
    expect(formatExact("-300")).toBe("-$300.00");
    expect(formatExact(1_204_037_500n)).toBe("$1,204.0375");
    expect(formatExact(-12n)).toBe("-$0.000012");
  });

  it("adds the parts with the other pages, and the lines, to compare with the total", () => {
    const answer = {
      total: "20.0375",
      lines: [line({ cost: "15.05" }), line({ kind: "adjustment", cost: "4.9875" })],
      parts: [{ cost: "10.0375" }, { cost: "4" }],
      earlier: { parts: 1, cost: "5" },
      later: { parts: 1, cost: "1" },
    } as unknown as UsageExplain;
    expect(partsCheck(answer)).toEqual({ sum: 20_037_500n, total: 20_037_500n, equal: true });
    expect(linesCheck(answer)).toEqual({ sum: 20_037_500n, total: 20_037_500n, equal: true });
    expect(partsCheck({ ...answer, total: "20.04" }).equal).toBe(false);
  });
});
