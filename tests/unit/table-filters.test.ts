import { describe, expect, it } from "vitest";
import { auditFilters, auditFilterValues, auditQuery, previousDay } from "../../src/lib/audit-log";
import { evalRunFilters, evalRunFilterValues } from "../../src/lib/eval-runs";
import {
  filterList,
  filterText,
  formFilter,
  MAX_SEARCH_LENGTH,
  searchFilter,
  searchText,
} from "../../src/lib/table-filters";

describe("table filters", () => {
  it("searches by trimmed text, bounded, and an empty search removes the filter", () => {
    expect(searchFilter("api_key_id", " k1 ")).toEqual({
      field: "api_key_id",
      operator: "contains",
      value: "k1",
    });
    expect(searchFilter("api_key_id", "   ")).toEqual({
      field: "api_key_id",
      operator: "contains",
      value: undefined,
    });
    expect(searchText("x".repeat(300))).toHaveLength(MAX_SEARCH_LENGTH);
    expect(searchText(undefined)).toBe("");
    expect(formFilter("workspace_uuid", "in", []).value).toBeUndefined();
    expect(formFilter("workspace_uuid", "in", ["a"]).value).toEqual(["a"]);
  });

  it("reads a control's value back from the filters as the URL carries them", () => {
    const filters = [
      { field: "search", operator: "contains" as const, value: "run-1" },
      { field: "workspace_uuid", operator: "in" as const, value: ["w1", "w2"] },
      { field: "one", operator: "in" as const, value: "w3" },
    ];
    expect(filterText(filters, "search")).toBe("run-1");
    expect(filterText(filters, "missing")).toBe("");
    // The operator is part of the filter's identity: a "contains" search is not an "eq" one.
    expect(filterText(filters, "search", "eq")).toBe("");
    expect(filterList(filters, "workspace_uuid")).toEqual(["w1", "w2"]);
    expect(filterList(filters, "one")).toEqual(["w3"]);
    expect(filterList(filters, "missing")).toEqual([]);
  });
});

describe("eval run filters", () => {
  it("round-trips the form through Refine's filters", () => {
    const values = { search: "red", workspace_uuid: ["w1"], billing_cycle_uuid: "c1" };
    expect(evalRunFilterValues(evalRunFilters(values))).toEqual(values);
    expect(evalRunFilters({ search: " " }).every((f) => f.value === undefined)).toBe(true);
    expect(evalRunFilterValues([])).toEqual({
      search: "",
      workspace_uuid: [],
      billing_cycle_uuid: undefined,
    });
  });
});

describe("audit log filters", () => {
  it("sends the API's parameters (an exclusive end) and reads the form's days back", () => {
    const values = { actor: "a@b.test", action: ["workspace.created"], from: "2026-11-01", to: "2026-11-30" };
    const filters = auditFilters(values);
    expect(filters.filter((f) => f.value !== undefined)).toEqual([
      { field: "actor", operator: "eq", value: "a@b.test" },
      { field: "action", operator: "in", value: ["workspace.created"] },
      { field: "starting_at", operator: "gte", value: "2026-11-01" },
      { field: "ending_at", operator: "lt", value: "2026-12-01" },
    ]);
    expect(auditFilterValues(filters)).toEqual({ ...values, target_type: undefined, target_id: undefined });
    expect(auditQuery(auditFilterValues(filters))).toEqual(auditQuery(values));
    expect(previousDay("2027-01-01")).toBe("2026-12-31");
  });
});
