import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import {
  CSV_HEADERS,
  CSV_PRICING_HEADERS,
  csvCells,
  csvCellsOf,
  csvHeaders,
  textCell,
} from "../../contract/usage-csv";
import { usageRecord } from "./support/usage-record";

const record = usageRecord({
  date: "2026-02-01T10:00:00.000Z",
  name: 'a "b", c',
  eval_type: "hallucination",
  created_by: "=HYPERLINK(evil)",
  cost: "-0.50",
  eval_run_uuid: "run-1",
  workspace_name: "Unknown Workspace",
  notes: "+credit\nsecond line",
  modality: "text",
  has_ground_truth: true,
});

describe("the usage export's columns", () => {
  it("has exactly the spec's twelve columns in order, the pricing details only when asked for", () => {
    const spec = [
      "Date",
      "Eval",
      "Operation",
      "Eval Type",
      "Eval ID",
      "Run ID",
      "Workspace",
      "Created By",
      "Quantity",
      "Unit Price",
      "Cost",
      "Price Adjustment Note",
    ];
    expect(CSV_HEADERS).toEqual(spec);
    expect(csvHeaders(null)).toEqual(spec);
    expect(CSV_PRICING_HEADERS).toEqual([
      ...spec,
      "Price Rule ID",
      "Price Rule Version",
      "Late From Period",
      "Late Occurred At",
    ]);
    expect(csvHeaders("pricing")).toEqual(CSV_PRICING_HEADERS);
  });

  it("fills a record's cells: exact amounts, empty for missing, formula text neutralised", () => {
    const specCells = [
      "2026-02-01T10:00:00.000Z",
      'a "b", c',
      "generation",
      "hallucination",
      "",
      "run-1",
      "Unknown Workspace",
      "'=HYPERLINK(evil)",
      "3",
      "0.0125",
      "-0.50",
      "'+credit\nsecond line",
    ];
    expect(csvCells(record)).toEqual(specCells);
    expect(csvCellsOf(null)(record)).toEqual(specCells);
    expect(csvCellsOf("pricing")(record)).toEqual([...specCells, "", "", "", ""]);
    // Maps a list of records as it is (the index is no argument of it).
    expect([record, record].map(csvCells)).toEqual([specCells, specCells]);
    // Provenance: the rule that priced the record and its version.
    const priced = {
      ...record,
      price_rule_uuid: "00000000-0000-4000-8000-0000000000aa",
      price_rule_version: 2,
    };
    expect(csvCells(priced)).toEqual(specCells);
    expect(csvCellsOf("pricing")(priced).slice(12)).toEqual([
      "00000000-0000-4000-8000-0000000000aa",
      "2",
      "",
      "",
    ]);
    // Late usage: its closed period, and when it happened.
    const late = {
      ...record,
      late_from: {
        period_start: "2026-01-01",
        period_end: "2026-02-01",
        occurred_at: "2026-01-20T08:00:00.000Z",
      },
    };
    expect(csvCellsOf("pricing")(late).slice(12)).toEqual([
      "",
      "",
      "2026-01-01 to 2026-02-01",
      "2026-01-20T08:00:00.000Z",
    ]);
    for (const lead of ["=", "+", "-", "@", "\t", "\r"]) expect(textCell(`${lead}x`)).toBe(`'${lead}x`);
    expect(textCell("plain")).toBe("plain");
    expect(textCell(null)).toBe("");
  });

  it("reads back from CSV as the same cells", () => {
    const text = Papa.unparse([[...CSV_HEADERS], csvCells(record)], { newline: "\r\n" });
    const rows = Papa.parse<Record<string, string>>(text, { header: true }).data;
    expect(rows).toHaveLength(1);
    expect(Object.values(rows[0] ?? {})).toEqual(csvCells(record));
  });
});
