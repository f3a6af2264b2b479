// Calendar arithmetic in UTC: the one place the product cuts time into hours, days, weeks (from
// Sunday) and months (from the 1st) — the dashboard's series, the usage report's buckets, billing
// months — in JavaScript and, for the statements that group by them, in SQL.

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export type CalendarUnit = "hour" | "day" | "week" | "month";

const floorTo = (t: number, size: number) => t - (((t % size) + size) % size);

/** The start of the hour, day, week (Sunday) or month (the 1st) holding `d`, in UTC. */
export function floorUtc(d: Date, unit: CalendarUnit): Date {
  const t = d.getTime();
  if (unit === "hour") return new Date(floorTo(t, HOUR_MS));
  const day = floorTo(t, DAY_MS);
  if (unit === "day") return new Date(day);
  if (unit === "week") return new Date(day - new Date(day).getUTCDay() * DAY_MS);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

/** `d` moved on by `n` units (n may be negative); months keep the day of the month (from the 1st). */
export function addUtc(d: Date, unit: CalendarUnit, n = 1): Date {
  const t = d.getTime();
  if (unit === "hour") return new Date(t + n * HOUR_MS);
  if (unit === "day") return new Date(t + n * DAY_MS);
  if (unit === "week") return new Date(t + n * 7 * DAY_MS);
  return new Date(
    Date.UTC(
      d.getUTCFullYear(),
      d.getUTCMonth() + n,
      d.getUTCDate(),
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
    ),
  );
}

/** How many units from the one holding `first` through the one holding `last`, both included. */
export function unitsSpanned(first: Date, last: Date, unit: CalendarUnit): number {
  const a = floorUtc(first, unit);
  const b = floorUtc(last, unit);
  if (unit === "month")
    return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth() + 1;
  const size = unit === "hour" ? HOUR_MS : unit === "day" ? DAY_MS : 7 * DAY_MS;
  return Math.round((b.getTime() - a.getTime()) / size) + 1;
}

/** The UTC day of an instant, "YYYY-MM-DD". */
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/** Midnight UTC of a "YYYY-MM-DD" day (not checked: see the callers' parsers). */
export const dayStart = (day: string) => new Date(`${day}T00:00:00Z`);

/**
 * The same floor in PostgreSQL, for a `timestamp` expression (without time zone, so the session's
 * zone plays no part): raw SQL text without bind parameters, so it reads the same in SELECT and
 * GROUP BY. PostgreSQL's weeks start on Monday: the time is moved one day on before truncating and
 * the result one day back.
 */
export function floorUtcSql(timestamp: string, unit: CalendarUnit): string {
  if (unit === "week") return `(date_trunc('week', ${timestamp} + interval '1 day') - interval '1 day')`;
  return `date_trunc('${unit}', ${timestamp})`;
}
