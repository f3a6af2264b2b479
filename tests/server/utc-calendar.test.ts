import { PGlite } from "@electric-sql/pglite";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addUtc,
  type CalendarUnit,
  floorUtc,
  floorUtcSql,
  unitsSpanned,
  utcDay,
} from "../../contract/utc-calendar";

// The product's one calendar in UTC: weeks from Sunday, months from the 1st, in JavaScript and in
// the SQL the series and the report group by, which must cut time at the same instants.

const UNITS: CalendarUnit[] = ["hour", "day", "week", "month"];
const instant = fc.date({
  min: new Date("2000-01-01T00:00:00Z"),
  max: new Date("2100-01-01T00:00:00Z"),
  noInvalidDate: true,
});

describe("UTC calendar", () => {
  it("floors to the hour, the day, the Sunday and the 1st, across year ends and leap days", () => {
    const at = new Date("2024-03-01T05:42:17.250Z"); // a Friday after a leap day
    expect(floorUtc(at, "hour").toISOString()).toBe("2024-03-01T05:00:00.000Z");
    expect(floorUtc(at, "day").toISOString()).toBe("2024-03-01T00:00:00.000Z");
    expect(floorUtc(at, "week").toISOString()).toBe("2024-02-25T00:00:00.000Z");
    expect(floorUtc(at, "month").toISOString()).toBe("2024-03-01T00:00:00.000Z");
    expect(utcDay(floorUtc(new Date("2027-01-01T12:00:00Z"), "week"))).toBe("2026-12-27");
    expect(utcDay(floorUtc(new Date("2026-11-29T23:59:59Z"), "week"))).toBe("2026-11-29"); // a Sunday
  });

  it("steps by units and counts the units a span touches", () => {
    expect(utcDay(addUtc(new Date("2026-12-01T00:00:00Z"), "month"))).toBe("2027-01-01");
    expect(utcDay(addUtc(new Date("2026-03-01T00:00:00Z"), "month", -2))).toBe("2026-01-01");
    expect(utcDay(addUtc(new Date("2024-02-28T00:00:00Z"), "day"))).toBe("2024-02-29");
    expect(unitsSpanned(new Date("2026-01-31T23:00:00Z"), new Date("2027-02-01T00:00:00Z"), "month")).toBe(
      14,
    );
    expect(unitsSpanned(new Date("2026-11-28T00:00:00Z"), new Date("2026-11-29T00:00:00Z"), "week")).toBe(2);
    expect(unitsSpanned(new Date("2026-11-01T00:00:00Z"), new Date("2026-11-01T23:59:59Z"), "day")).toBe(1);
  });

  it("every instant lies in its unit: floor ≤ t < next floor, and the floor is a fixed point", () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...UNITS), (t, unit) => {
        const start = floorUtc(t, unit);
        const next = addUtc(start, unit);
        expect(start.getTime()).toBeLessThanOrEqual(t.getTime());
        expect(next.getTime()).toBeGreaterThan(t.getTime());
        expect(floorUtc(start, unit).getTime()).toBe(start.getTime());
        expect(floorUtc(new Date(next.getTime() - 1), unit).getTime()).toBe(start.getTime());
        expect(unitsSpanned(start, next, unit)).toBe(2);
      }),
    );
  });

  describe("in SQL", () => {
    let db: PGlite;
    beforeAll(async () => {
      db = new PGlite();
      await db.waitReady;
    });
    afterAll(async () => {
      await db?.close();
    });

    it("cuts at the same instants as in JavaScript", async () => {
      const times = fc.sample(instant, { numRuns: 200, seed: 2026_11_27 });
      // Sundays, month ends and midnights: where an off-by-one would show.
      times.push(
        new Date("2026-11-29T00:00:00Z"),
        new Date("2026-11-28T23:59:59.999Z"),
        new Date("2024-02-29T12:00:00Z"),
      );
      for (const unit of UNITS) {
        const { rows } = await db.query<{ floor: string }>(
          `select to_char(${floorUtcSql("t", unit)}, 'YYYY-MM-DD"T"HH24:MI:SS') as floor
             from unnest($1::timestamptz[]) with ordinality as u(tz, n), lateral (select tz at time zone 'UTC' as t) x
            order by n`,
          [times.map((t) => t.toISOString())],
        );
        expect(rows.map((r) => `${r.floor}.000Z`)).toEqual(times.map((t) => floorUtc(t, unit).toISOString()));
      }
    });
  });
});
