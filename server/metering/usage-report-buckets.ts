// The report's buckets in UTC, by arithmetic: where a bucket starts, where the next one starts, and
// how many a period spans (checked before any usage is read). Weeks start on Sunday and months on
// the 1st, as the dashboard's series (filters.ts bucketStart).
import type { BucketWidth } from "../../contract/usage-report";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The start of the bucket holding instant `d`. */
export function bucketFloor(d: Date, width: BucketWidth): Date {
  const t = d.getTime();
  if (width === "1h") return new Date(t - (((t % HOUR_MS) + HOUR_MS) % HOUR_MS));
  const day = t - (((t % DAY_MS) + DAY_MS) % DAY_MS);
  if (width === "1d") return new Date(day);
  if (width === "1w") return new Date(day - new Date(day).getUTCDay() * DAY_MS);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucket(start: Date, width: BucketWidth): Date {
  const t = start.getTime();
  if (width === "1h") return new Date(t + HOUR_MS);
  if (width === "1d") return new Date(t + DAY_MS);
  if (width === "1w") return new Date(t + 7 * DAY_MS);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/** How many buckets [start, end) touches (end after start). */
export function bucketsSpanned(start: Date, end: Date, width: BucketWidth): number {
  const first = bucketFloor(start, width);
  const last = bucketFloor(new Date(end.getTime() - 1), width);
  if (width === "1mo") {
    const months = (d: Date) => d.getUTCFullYear() * 12 + d.getUTCMonth();
    return months(last) - months(first) + 1;
  }
  const size = width === "1h" ? HOUR_MS : width === "1d" ? DAY_MS : 7 * DAY_MS;
  return Math.round((last.getTime() - first.getTime()) / size) + 1;
}

/** The default end of a period: now, rounded up to the next whole hour (1h) or UTC day. */
export function defaultEnd(width: BucketWidth, now = new Date()): Date {
  const unit = width === "1h" ? "1h" : "1d";
  const floor = bucketFloor(now, unit);
  return floor.getTime() === now.getTime() ? floor : nextBucket(floor, unit);
}

/** Whether an instant is midnight UTC (a period of whole days can be read from the daily rollups). */
export const isMidnight = (d: Date) => d.getTime() % DAY_MS === 0;
