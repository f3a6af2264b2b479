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
    const values = { search: "red", billing_cycle_uuid: "c1" };
    expect(evalRunFilterValues(evalRunFilters(values))).toEqual(values);
    expect(evalRunFilters({ search: " " }).every((f) => f.value === undefined)).toBe(true);
    expect(evalRunFilterValues([])).toEqual({ search: "", billing_cycle_uuid: undefined });
    // The workspace filter is the column's: submitting the form never sets or clears it.
    expect(evalRunFilters(values).map((f) => ("field" in f ? f.field : ""))).not.toContain("workspace_uuid");
  });
});

describe("audit log filters", () => {
  it("sends the API's parameters (an exclusive end) and reads the form's days back", () => {
    const values = { target_id: "ws-1", from: "2026-11-01", to: "2026-11-30" };
    const filters = auditFilters(values);
    expect(filters.filter((f) => f.value !== undefined)).toEqual([
      { field: "target_id", operator: "eq", value: "ws-1" },
      { field: "starting_at", operator: "gte", value: "2026-11-01" },
      { field: "ending_at", operator: "lt", value: "2026-12-01" },
    ]);
    // Actor and action are the columns' filters: the form neither sets nor clears them.
    expect(filters.map((f) => ("field" in f ? f.field : ""))).not.toContain("actor");
    const withColumns = [
      ...filters,
      { field: "actor", operator: "eq" as const, value: "a@b.test" },
      { field: "action", operator: "in" as const, value: ["workspace.created"] },
    ];
    const read = { ...values, actor: "a@b.test", action: ["workspace.created"], target_type: undefined };
    expect(auditFilterValues(withColumns)).toEqual(read);
    expect(auditQuery(auditFilterValues(withColumns))).toEqual(auditQuery(read));
    expect(previousDay("2027-01-01")).toBe("2026-12-31");
  });
});
