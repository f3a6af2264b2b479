import { describe, expect, it } from "vitest";
import { meets, type SavedRun } from "../../bench/results";
import { summaryTable } from "../../bench/summary";

// The benchmark summary decides met / missed from each figure's target; a wrong comparison would
// report a missed target as met.

describe("benchmark targets", () => {
  it("checks a target against the value or the ratio it names", () => {
    const bearer = { id: "b", label: "bearer", value: 300, unit: "req/s", ratio: 0.45 };
    expect(meets({ ...bearer, target: { on: "ratio", op: ">=", limit: 0.5 } })).toBe(false);
    expect(meets({ ...bearer, ratio: 0.5, target: { on: "ratio", op: ">=", limit: 0.5 } })).toBe(true);
    expect(meets({ ...bearer, target: { on: "value", op: "<", limit: 300 } })).toBe(false);
    expect(meets({ ...bearer, target: { on: "value", op: "<=", limit: 300 } })).toBe(true);
    expect(meets({ ...bearer, target: { on: "value", op: ">", limit: 299 } })).toBe(true);
  });

  it("has no verdict without a target or without the figure the target checks", () => {
    expect(meets({ id: "x", label: "x", value: 1, unit: "ms" })).toBeUndefined();
    expect(
      meets({ id: "x", label: "x", value: 1, unit: "ms", target: { on: "ratio", op: ">", limit: 1 } }),
    ).toBeUndefined();
  });
});

describe("summary table", () => {
  const run = (bench: string, finishedAt: string, figures: SavedRun["figures"]): SavedRun => ({
    bench,
    backend: "postgresql",
    commit: "abc123",
    dirty: true,
    startedAt: finishedAt,
    finishedAt,
    load: { start: [3.5, 2, 1], end: [4.25, 2, 1] },
    machine: { cpus: 2, cpuModel: "cpu", memoryGiB: 24, node: "v20", platform: "linux-x64" },
    params: {},
    figures,
    notes: [],
  });

  it("lists every figure with its ratio, target and verdict, and counts met and missed", () => {
    const text = summaryTable(
      [
        run("load", "2026-01-01T10:00:00.000Z", [
          {
            id: "bearer",
            label: "workspace list, bearer",
            value: 1234,
            unit: "req/s",
            ratio: 0.62,
            target: { on: "ratio", op: ">=", limit: 0.5 },
            met: true,
          },
          {
            id: "key",
            label: "workspace list, x-api-key",
            value: 700,
            unit: "req/s",
            ratio: 0.57,
            target: { on: "ratio", op: ">=", limit: 0.9 },
            met: false,
          },
        ]),
        run("ingest", "2026-01-01T09:00:00.000Z", [
          { id: "http", label: "HTTP", value: 5000, unit: "events/s" },
        ]),
      ],
      Date.parse("2026-01-01T09:30:00.000Z"),
    );
    expect(text).toContain("abc123+ · load 3.5→4.25");
    expect(text).toMatch(/workspace list, bearer\s+1,234 req\/s\s+0\.62×\s+≥ 0\.50×\s+met/);
    expect(text).toMatch(/workspace list, x-api-key\s+700 req\/s\s+0\.57×\s+≥ 0\.90×\s+MISSED/);
    expect(text).toContain("1 met, 1 missed");
    // A result older than this summary's start was not re-run: it says so.
    expect(text.split("\n").find((l) => l.includes("── ingest"))).toContain("not re-run");
    expect(text.split("\n").find((l) => l.includes("── load"))).not.toContain("not re-run");
    // Benchmarks in the order of the targets list, not alphabetically.
    expect(text.indexOf("── load")).toBeLessThan(text.indexOf("── ingest"));
  });
});
