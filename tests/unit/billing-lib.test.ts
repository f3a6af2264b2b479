import { describe, expect, it } from "vitest";
import type { BillingCycle } from "../../contract/billing-cycle-schema";
import { capitalizeWords } from "../../contract/eval-types";
import { formatBalance } from "../../contract/money";
import { axisLabel, chartData, tooltipValue } from "../../src/lib/billing/chart";
import { createLineCounter, exportPercent, hasExpectedHeader, parseCsv } from "../../src/lib/billing/csv";
import { sortCycles } from "../../src/lib/billing/cycle-order";
import {
  bucketLabel,
  bucketTitle,
  exportFileName,
  formatUtcDate,
  formatUtcDateTime,
  periodLabel,
} from "../../src/lib/billing/dates";
import {
  activeFilterCount,
  clearAllLabel,
  EMPTY_FILTERS,
  filtersOfTable,
  readSort,
  recordFilters,
  SORTABLE,
  usageQuery,
} from "../../src/lib/billing/filters";
import {
  countWithUnit,
  groupLabel,
  operationLabel,
  operationTileLabel,
  orDash,
} from "../../src/lib/billing/labels";
import { pagerText } from "../../src/lib/billing/paging";
import {
  filterSummary,
  optionsWithSelected,
  toggleValue,
  workspaceSummary,
} from "../../src/lib/billing/selection";
import { balanceMicros, groupBreakdown, totalCostMicros } from "../../src/lib/billing/totals";

describe("labels", () => {
  it("turns underscores into capitalised words", () => {
    expect(operationLabel("eval_generation")).toBe("Eval Generation");
    expect(operationLabel("")).toBe("-");
  });

  it("shows '-' for missing values", () => {
    expect(orDash(null)).toBe("-");
    expect(orDash("  ")).toBe("-");
    expect(orDash(0)).toBe("0");
  });

  it("labels the Usage Summary tiles and their units by metric", () => {
    expect(operationTileLabel("generation", "eval")).toBe("Evals Generated");
    expect(operationTileLabel("scoring", "eval")).toBe("Evals Scored");
    expect(operationTileLabel("generation", "prompt")).toBe("Prompts Generated");
    expect(operationTileLabel("scoring", "prompt")).toBe("Responses Scored");
    expect(operationTileLabel("red_teaming", "eval")).toBe("Red Teaming");
    expect(countWithUnit(1, "generation", "eval")).toBe("1 eval");
    expect(countWithUnit(1200, "scoring", "eval")).toBe("1,200 evals");
    expect(countWithUnit(3, "generation", "prompt")).toBe("3 prompts");
    expect(countWithUnit(3, "scoring", "prompt")).toBe("3 responses");
  });

  it("calls the default workspace group Other", () => {
    expect(groupLabel("default")).toBe("Other");
    expect(groupLabel("Research")).toBe("Research");
  });
});

describe("dates (UTC, short month)", () => {
  it("formats days and instants in UTC", () => {
    expect(formatUtcDate("2026-01-05")).toBe("Jan 5, 2026");
    expect(formatUtcDate("2026-01-31T23:59:59Z")).toBe("Jan 31, 2026");
    expect(formatUtcDateTime("2026-03-09T07:05:00.000Z")).toBe("Mar 9, 2026, 07:05 UTC");
    expect(formatUtcDate(null)).toBe("-");
  });

  it("labels a billing period with its end or Present", () => {
    expect(periodLabel("2026-01-01", "2026-02-01")).toBe("Jan 1, 2026 - Feb 1, 2026");
    expect(periodLabel("2026-02-01", null)).toBe("Feb 1, 2026 - Present");
  });

  it("labels chart buckets per grouping", () => {
    expect(bucketLabel("2026-01-04", "daily")).toBe("Jan 4");
    expect(bucketLabel("2026-01-04", "weekly")).toBe("Jan 4");
    expect(bucketLabel("2026-01-01", "monthly")).toBe("Jan 2026");
    expect(bucketTitle("2026-01-04", "weekly")).toBe("Week of Jan 4, 2026");
    expect(bucketTitle("2026-01-04", "daily")).toBe("Jan 4, 2026");
  });

  it("names the export after the UTC day", () => {
    expect(exportFileName(new Date("2026-07-04T23:30:00Z"))).toBe("usage_data_2026-07-04.csv");
  });
});

const cycle = (over: Partial<BillingCycle> = {}): BillingCycle => ({
  billing_cycle_uuid: "c1",
  billing_cycle_start_date: "2026-01-01",
  billing_cycle_end_date: "2026-02-01",
  paid_amount_usd: "10.00",
  total_cost: "30.50",
  unattributed_cost: "0.50",
  workspace_groups: [],
  usage_breakdown: { usage_events: [] },
  ...over,
});

describe("totals", () => {
  it("sums positive group balances and the unattributed cost", () => {
    const c = cycle({
      workspace_groups: [
        { group_name: "Research", total_cost: "20.00", balance_remaining: "-80.00" },
        { group_name: "default", total_cost: "10.00", balance_remaining: "10.00" },
      ],
    });
    expect(balanceMicros(c)).toBe(10_500_000n);
    expect(groupBreakdown(c)).toEqual([
      { label: "Research", cost: 20_000_000n },
      { label: "Other", cost: 10_000_000n },
    ]);
    expect(totalCostMicros(c)).toBe(30_500_000n);
  });

  it("can be a credit when the unattributed cost is negative", () => {
    expect(formatBalance(balanceMicros(cycle({ unattributed_cost: "-3.20" })))).toEqual({
      text: "($3.20)",
      credit: true,
    });
  });

  it("breaks the total down only with more than one group", () => {
    expect(
      groupBreakdown(
        cycle({ workspace_groups: [{ group_name: "default", total_cost: "1", balance_remaining: "1" }] }),
      ),
    ).toEqual([]);
  });

  it("orders cycles by start date ascending", () => {
    const list = sortCycles([
      cycle({ billing_cycle_uuid: "b", billing_cycle_start_date: "2026-02-01" }),
      cycle({ billing_cycle_uuid: "a", billing_cycle_start_date: "2026-01-01" }),
    ]);
    expect(list.map((c) => c.billing_cycle_uuid)).toEqual(["a", "b"]);
  });
});

describe("selection summaries", () => {
  const names = new Map([
    ["w1", "Safety Research"],
    ["w2", "Red Team"],
  ]);
  const nameOf = (id: string) => names.get(id);
  it("summarises the workspace choice", () => {
    expect(workspaceSummary([], nameOf)).toBe("All workspaces");
    expect(workspaceSummary(["w2"], nameOf)).toBe("Red Team");
    expect(workspaceSummary(["gone"], nameOf)).toBe("1 selected");
    expect(workspaceSummary(["w1", "w2"], nameOf)).toBe("Safety Research +1");
    expect(workspaceSummary(["w2", "w1", "x"], nameOf)).toBe("Red Team +2");
  });

  it("summarises a filter and keeps chosen values offered", () => {
    expect(filterSummary([], capitalizeWords)).toBe("All");
    expect(filterSummary(["image_safety"], capitalizeWords)).toBe("Image Safety");
    expect(filterSummary(["a", "b", "c"], capitalizeWords)).toBe("A +2");
    expect(toggleValue(["b"], "a", ["a", "b"])).toEqual(["a", "b"]);
    expect(toggleValue(["a", "b"], "a", ["a", "b"])).toEqual(["b"]);
    expect(optionsWithSelected(["a"], ["z"])).toEqual(["a", "z"]);
  });
});

describe("filters and query parameters", () => {
  it("counts the filter bar's active filters for Clear all (n)", () => {
    expect(clearAllLabel(EMPTY_FILTERS)).toBeNull();
    const f = {
      ...EMPTY_FILTERS,
      evalTypes: ["safety", "jailbreak"],
      jailbreak: "only" as const,
      workspaceUuids: ["w"],
    };
    expect(activeFilterCount(f)).toBe(2);
    expect(clearAllLabel(f)).toBe("Clear all (2)");
  });

  it("builds the usage query and the same as Refine filters", () => {
    const f = {
      ...EMPTY_FILTERS,
      workspaceUuids: ["w1"],
      modalities: ["text"],
      groundTruth: "with" as const,
    };
    expect(usageQuery("c1", f, "  probe ")).toEqual({
      billing_cycle_uuid: "c1",
      workspace_uuid: ["w1"],
      modality: ["text"],
      ground_truth: "with",
      search: "probe",
    });
    // The records table's Refine filters: the set ones, without the period (the page's own).
    expect(recordFilters(f, "probe")).toEqual([
      { field: "workspace_uuid", operator: "in", value: ["w1"] },
      { field: "modality", operator: "in", value: ["text"] },
      { field: "ground_truth", operator: "eq", value: "with" },
      { field: "search", operator: "contains", value: "probe" },
    ]);
    expect(recordFilters(EMPTY_FILTERS, "  ")).toEqual([]);
  });

  it("reads the filter bar and search back from the table's filters, dropping unusable values", () => {
    const ws = "AAAAAAAA-0000-4000-8000-000000000001";
    expect(
      filtersOfTable([
        { field: "workspace_uuid", operator: "in", value: [ws, "nope", ws.toLowerCase()] },
        { field: "eval_type", operator: "in", value: "safety" },
        { field: "operation", operator: "in", value: ["scoring", " ", "x".repeat(201)] },
        { field: "modality", operator: "eq", value: ["text"] },
        { field: "ground_truth", operator: "eq", value: "maybe" },
        { field: "jailbreak", operator: "eq", value: "only" },
        { field: "search", operator: "contains", value: ` ${"s".repeat(300)}` },
        { field: "billing_cycle_uuid", operator: "eq", value: "c1" },
      ]),
    ).toEqual({
      filters: {
        ...EMPTY_FILTERS,
        workspaceUuids: [ws.toLowerCase()],
        evalTypes: ["safety"],
        operations: ["scoring"],
        jailbreak: "only",
      },
      search: "s".repeat(200),
    });
    for (const garbage of [undefined, "x", { 0: "a" }, [null, 1, "s"]]) {
      expect(filtersOfTable(garbage)).toEqual({ filters: EMPTY_FILTERS, search: "" });
    }
    const f = { ...EMPTY_FILTERS, evalTypes: ["safety"], groundTruth: "without" as const };
    expect(filtersOfTable(recordFilters(f, "red team & co"))).toEqual({
      filters: f,
      search: "red team & co",
    });
  });

  it("reads the sort from Refine's sorters: one sortable column, else date descending", () => {
    for (const field of SORTABLE) {
      expect(readSort([{ field, order: "asc" }])).toEqual({ field, order: "asc" });
    }
    expect(readSort([])).toEqual({ field: "date", order: "desc" });
    expect(readSort([{ field: "password", order: "asc" }])).toEqual({ field: "date", order: "desc" });
    expect(readSort([{ field: "cost", order: "up" }])).toEqual({ field: "date", order: "desc" });
    expect(readSort("cost")).toEqual({ field: "date", order: "desc" });
  });

  it("writes the pager text", () => {
    expect(pagerText(1, 0, 0)).toBe("Page 1 of 1 (0 total records)");
    expect(pagerText(2, 3, 25)).toBe("Page 2 of 3 (25 total records)");
    expect(pagerText(1, 10_000, 100_000)).toBe("Page 1 of 10,000 (100,000 total records)");
  });
});

describe("chart data", () => {
  const NONE = { events: 0, count: 0, price: "0.00" };
  const buckets = [
    {
      date: "2026-01-04",
      events: 3,
      total_count: 5,
      total_price: "1.50",
      adjustments: NONE,
      eval_types: [
        { eval_type: "accuracy", events: 1, count: 1, price: "0.50", adjustments: NONE },
        { eval_type: "hallucination", events: 1, count: 2, price: "0.25", adjustments: NONE },
        { eval_type: "safety", events: 1, count: 2, price: "0.80", adjustments: NONE },
      ],
    },
    { date: "2026-01-05", events: 0, total_count: 0, total_price: "0.00", adjustments: NONE, eval_types: [] },
  ];
  it("stacks eval-type labels per bucket and keeps empty buckets on the axis", () => {
    const cost = chartData(buckets, "daily", "cost");
    expect(cost.buckets).toEqual(["Jan 4", "Jan 5"]);
    expect(cost.evalTypes).toEqual(["Safety", "Accuracy"]);
    expect(cost.rows).toEqual([
      { bucket: "Jan 4", title: "Jan 4, 2026", evalType: "Safety", value: 0.8 },
      { bucket: "Jan 4", title: "Jan 4, 2026", evalType: "Accuracy", value: 0.75 },
    ]);
    const usage = chartData(buckets, "daily", "usage");
    expect(usage.rows.map((r) => [r.evalType, r.value])).toEqual([
      ["Accuracy", 3],
      ["Safety", 2],
    ]);
  });

  it("formats tooltip values and whole-number usage ticks", () => {
    expect(tooltipValue(1.5, "cost")).toBe("$1.50");
    expect(tooltipValue(1, "usage")).toBe("1 run");
    expect(tooltipValue(12, "usage")).toBe("12 usage");
    expect(axisLabel(2.5, "usage")).toBe("");
    expect(axisLabel(3, "usage")).toBe("3");
    expect(axisLabel(-200, "cost")).toBe("-$200");
  });
});

describe("CSV export", () => {
  const header =
    "Date,Eval,Operation,Eval Type,Eval ID,Run ID,Workspace,Created By,Quantity,Unit Price,Cost,Price Adjustment Note";
  const detailed = `${header},Price Rule ID,Price Rule Version,Late From Period,Late Occurred At`;
  it("checks exactly the spec's 12 columns in order, or with pricing details those and the four after them", () => {
    expect(hasExpectedHeader(`${header}\r\n2026-01-01,...`)).toBe(true);
    expect(hasExpectedHeader("<!doctype html>")).toBe(false);
    expect(hasExpectedHeader(header.replace("Eval,Operation", "Operation,Eval"))).toBe(false);
    // Each export its own columns, nothing more or less.
    expect(hasExpectedHeader(detailed)).toBe(false);
    expect(hasExpectedHeader(`${detailed}\r\n2026-01-01,...`, "pricing")).toBe(true);
    expect(hasExpectedHeader(header, "pricing")).toBe(false);
    expect(
      hasExpectedHeader(
        detailed.replace("Late From Period,Late Occurred At", "Late Occurred At,Late From Period"),
        "pricing",
      ),
    ).toBe(false);
  });

  it("counts record lines across chunks, ignoring line breaks inside quotes", () => {
    const counter = createLineCounter();
    counter.push(`${header}\r\n2026,"multi`);
    counter.push(`\r\nline",x\r\n2026,b,c\r`);
    expect(counter.push("\n")).toBe(3);
    expect(exportPercent(3, 2)).toBe(99);
    expect(exportPercent(2, 4)).toBe(25);
    expect(parseCsv(`${header}\r\n2026,"a, b",gen\r\n`)[0]).toMatchObject({ Eval: "a, b", Operation: "gen" });
  });
});
