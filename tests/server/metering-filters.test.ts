import { describe, expect, it } from "vitest";
import {
  bucketStart,
  bucketStarts,
  type FilterableRecord,
  hasFilters,
  keepsRecord,
  monthStart,
  NO_FILTERS,
  nextBucket,
  topByCost,
  topWorkspaces,
  type UsageFilters,
} from "../../server/metering/usage/filters";

const rec = (over: Partial<FilterableRecord> = {}): FilterableRecord => ({
  workspaceUuid: "w1",
  evalType: "safety",
  operation: "generation",
  modality: "text",
  isJailbreak: false,
  hasGroundTruth: false,
  ...over,
});
const f = (over: Partial<UsageFilters>): UsageFilters => ({ ...NO_FILTERS, ...over });

describe("keepsRecord", () => {
  it("keeps everything without filters", () => {
    expect(keepsRecord(rec(), NO_FILTERS)).toBe(true);
    expect(hasFilters(NO_FILTERS)).toBe(false);
    expect(hasFilters(f({ search: "x" }))).toBe(true);
  });

  it.each([
    ["eval type chosen", f({ evalTypes: ["safety", "accuracy"] }), rec(), true],
    ["eval type not chosen", f({ evalTypes: ["accuracy"] }), rec(), false],
    ["eval type by group", f({ evalTypes: ["accuracy"] }), rec({ evalType: "hallucination" }), true],
    [
      "eval type group by any member",
      f({ evalTypes: ["Hallucination"] }),
      rec({ evalType: "accuracy" }),
      true,
    ],
    ["operation not chosen", f({ operations: ["scoring"] }), rec(), false],
    ["modality not chosen", f({ modalities: ["image"] }), rec(), false],
    ["modality missing stays", f({ modalities: ["image"] }), rec({ modality: "" }), true],
    ["modality compared lower-cased", f({ modalities: ["text"] }), rec({ modality: "TEXT" }), true],
    ["workspace not chosen", f({ workspaceUuids: ["w2"] }), rec(), false],
    ["no workspace stays", f({ workspaceUuids: ["w2"] }), rec({ workspaceUuid: null }), true],
    ["ground truth with, record without", f({ groundTruth: "with" }), rec(), false],
    ["ground truth without, record without", f({ groundTruth: "without" }), rec(), true],
    [
      "ground truth without, record with",
      f({ groundTruth: "without" }),
      rec({ hasGroundTruth: true }),
      false,
    ],
    ["jailbreak only, record not", f({ jailbreak: "only" }), rec(), false],
    ["jailbreak only, record is", f({ jailbreak: "only" }), rec({ isJailbreak: true }), true],
    ["non-jailbreak, record is", f({ jailbreak: "non" }), rec({ isJailbreak: true }), false],
    [
      "all filters at once",
      f({ evalTypes: ["safety"], operations: ["generation"], groundTruth: "without", jailbreak: "non" }),
      rec(),
      true,
    ],
  ])("%s", (_name, filters, record, kept) => {
    expect(keepsRecord(record, filters)).toBe(kept);
  });
});

describe("chart buckets", () => {
  it("weeks start on Sunday (UTC), months on the 1st", () => {
    expect(bucketStart("2026-03-04", "weekly")).toBe("2026-03-01"); // Wednesday → Sunday
    expect(bucketStart("2026-03-01", "weekly")).toBe("2026-03-01"); // a Sunday
    expect(bucketStart("2026-03-07", "weekly")).toBe("2026-03-01"); // Saturday
    expect(bucketStart("2026-01-01", "weekly")).toBe("2025-12-28"); // across a year
    expect(bucketStart("2026-02-28", "monthly")).toBe("2026-02-01");
    expect(bucketStart("2026-02-28", "daily")).toBe("2026-02-28");
    expect(nextBucket("2026-01-01", "monthly")).toBe("2026-02-01");
    expect(nextBucket("2025-12-28", "weekly")).toBe("2026-01-04");
    expect(() => bucketStart("2026-02-30", "daily")).toThrow(RangeError);
  });

  it("lists contiguous bucket starts, every week start a Sunday", () => {
    expect(bucketStarts("2026-01-30", "2026-02-02", "daily")).toEqual([
      "2026-01-30",
      "2026-01-31",
      "2026-02-01",
      "2026-02-02",
    ]);
    expect(bucketStarts("2025-11-15", "2026-02-01", "monthly")).toEqual([
      "2025-11-01",
      "2025-12-01",
      "2026-01-01",
      "2026-02-01",
    ]);
    const weeks = bucketStarts("2026-01-01", "2026-12-31", "weekly");
    expect(weeks).toHaveLength(53);
    for (const w of weeks) expect(new Date(`${w}T00:00:00Z`).getUTCDay()).toBe(0);
    expect(monthStart(new Date("2026-03-31T23:59:59.999Z"))).toBe("2026-03-01");
  });
});

describe("top lists", () => {
  const row = (key: string | null, cost: bigint, quantity = 1) => ({
    key,
    events: 1,
    quantity,
    costMicros: cost,
  });

  it("keeps the top N by cost and adds one No Workspace row for unattributed usage", () => {
    const rows = [
      row("a", 5n),
      row("b", 9n),
      row(null, 3n),
      row("c", 7n),
      row("d", 1n),
      row("e", 2n),
      row("f", 8n),
      row("g", 6n),
    ];
    const top = topWorkspaces(rows, 6);
    expect(top.map((r) => r.key)).toEqual(["b", "f", "c", "g", "a", "e", null]);
    expect(top.at(-1)?.costMicros).toBe(3n);
    expect(topWorkspaces([row("a", 1n)], 6).map((r) => r.key)).toEqual(["a"]);
    expect(topByCost([row("x", 1n, 1), row("y", 1n, 5)], 1).map((r) => r.key)).toEqual(["y"]);
  });
});
