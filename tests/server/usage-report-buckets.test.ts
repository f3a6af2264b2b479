import { describe, expect, it } from "vitest";
import { parseInstant } from "../../contract/usage-report";
import {
  bucketFloor,
  bucketsSpanned,
  defaultEnd,
  nextBucket,
} from "../../server/metering/usage/report-buckets";

// The report's period and bucket arithmetic, without a database: what a client's starting_at means,
// where buckets start (weeks on Sunday, calendar months, UTC) and how many a period spans.

const at = (s: string) => new Date(s);
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe("parseInstant", () => {
  it("reads days, UTC times and offsets as the instant they name", () => {
    expect(iso(parseInstant("2026-03-01"))).toBe("2026-03-01T00:00:00.000Z");
    expect(iso(parseInstant("2026-03-01T10:20Z"))).toBe("2026-03-01T10:20:00.000Z");
    expect(iso(parseInstant("2026-03-01T10:20:30.123456789Z"))).toBe("2026-03-01T10:20:30.123Z");
    expect(iso(parseInstant("2026-03-01T02:00:00+02:00"))).toBe("2026-03-01T00:00:00.000Z");
    expect(iso(parseInstant("2026-02-28T19:30:00-04:30"))).toBe("2026-03-01T00:00:00.000Z");
    expect(iso(parseInstant("0001-01-01T00:00:00Z"))).toBe("0001-01-01T00:00:00.000Z");
  });

  it("refuses days and times that do not exist, and other texts", () => {
    for (const text of [
      "2026-02-29",
      "2026-13-01",
      "2026-04-31T00:00:00Z",
      "2026-03-01T24:00:00Z",
      "2026-03-01T10:60:00Z",
      "2026-03-01T10:00:00+05:75",
      "2026-03-01T10:00:00+19:00",
      "2026-03-01T10:00:00",
      "2026-3-1",
      "1709251200",
      "",
      "2026-03-01T00:00:00Z ",
    ])
      expect(parseInstant(text), text).toBeNull();
    expect(iso(parseInstant("2024-02-29"))).toBe("2024-02-29T00:00:00.000Z");
  });
});

describe("buckets", () => {
  it("start on the hour, the UTC day, the Sunday before and the 1st", () => {
    const t = at("2026-01-07T15:42:10Z"); // a Wednesday
    expect(iso(bucketFloor(t, "1h"))).toBe("2026-01-07T15:00:00.000Z");
    expect(iso(bucketFloor(t, "1d"))).toBe("2026-01-07T00:00:00.000Z");
    expect(iso(bucketFloor(t, "1w"))).toBe("2026-01-04T00:00:00.000Z");
    expect(iso(bucketFloor(at("2026-01-04T00:00:00Z"), "1w"))).toBe("2026-01-04T00:00:00.000Z");
    expect(iso(bucketFloor(at("2026-01-03T23:59:59Z"), "1w"))).toBe("2025-12-28T00:00:00.000Z");
    expect(iso(bucketFloor(t, "1mo"))).toBe("2026-01-01T00:00:00.000Z");
  });

  it("end where the next begins: months of 28 to 31 days, weeks of 7", () => {
    expect(iso(nextBucket(at("2026-01-31T23:00:00Z"), "1h"))).toBe("2026-02-01T00:00:00.000Z");
    expect(iso(nextBucket(at("2025-12-28T00:00:00Z"), "1w"))).toBe("2026-01-04T00:00:00.000Z");
    expect(iso(nextBucket(at("2026-02-01T00:00:00Z"), "1mo"))).toBe("2026-03-01T00:00:00.000Z");
    expect(iso(nextBucket(at("2026-12-01T00:00:00Z"), "1mo"))).toBe("2027-01-01T00:00:00.000Z");
  });

  it("counts the buckets a half-open period touches", () => {
    expect(bucketsSpanned(at("2026-01-01"), at("2026-02-01"), "1h")).toBe(744);
    expect(bucketsSpanned(at("2026-01-01"), at("2026-01-01T00:00:01Z"), "1h")).toBe(1);
    expect(bucketsSpanned(at("2026-01-01T10:30:00Z"), at("2026-01-01T11:30:00Z"), "1h")).toBe(2);
    expect(bucketsSpanned(at("2026-01-01"), at("2027-01-01"), "1d")).toBe(365);
    // Thursday 1 January to Sunday 4 January (exclusive): only the week of Sunday 28 December.
    expect(bucketsSpanned(at("2026-01-01"), at("2026-01-04"), "1w")).toBe(1);
    expect(bucketsSpanned(at("2026-01-01"), at("2026-01-05"), "1w")).toBe(2);
    expect(bucketsSpanned(at("2026-01-15"), at("2026-03-01"), "1mo")).toBe(2);
    expect(bucketsSpanned(at("2000-01-01"), at("2100-01-01"), "1mo")).toBe(1200);
  });

  it("default the period's end to the next whole hour or day", () => {
    const now = at("2026-03-04T10:20:00Z");
    expect(iso(defaultEnd("1h", now))).toBe("2026-03-04T11:00:00.000Z");
    expect(iso(defaultEnd("1d", now))).toBe("2026-03-05T00:00:00.000Z");
    expect(iso(defaultEnd("1mo", at("2026-03-04T00:00:00Z")))).toBe("2026-03-04T00:00:00.000Z");
  });
});
