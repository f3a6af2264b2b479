// The report's buckets in UTC (contract/utc-calendar, as the dashboard's series): where a bucket
// starts, where the next one starts, and how many a period spans (checked before any usage is read).
import type { BucketWidth } from "../../../contract/usage-report";
import { addUtc, type CalendarUnit, DAY_MS, floorUtc, unitsSpanned } from "../../../contract/utc-calendar";

/** The calendar unit of each bucket width. */
export const WIDTH_UNIT = {
  "1h": "hour",
  "1d": "day",
  "1w": "week",
  "1mo": "month",
} as const satisfies Record<BucketWidth, CalendarUnit>;

/** The start of the bucket holding instant `d`. */
export const bucketFloor = (d: Date, width: BucketWidth): Date => floorUtc(d, WIDTH_UNIT[width]);

/** The start of the bucket after the one starting at `start`. */
export const nextBucket = (start: Date, width: BucketWidth): Date => addUtc(start, WIDTH_UNIT[width]);

/** How many buckets [start, end) touches (end after start). */
export const bucketsSpanned = (start: Date, end: Date, width: BucketWidth): number =>
  unitsSpanned(start, new Date(end.getTime() - 1), WIDTH_UNIT[width]);

/** The default end of a period: now, rounded up to the next whole hour (1h) or UTC day. */
export function defaultEnd(width: BucketWidth, now = new Date()): Date {
  const unit = width === "1h" ? "1h" : "1d";
  const floor = bucketFloor(now, unit);
  return floor.getTime() === now.getTime() ? floor : nextBucket(floor, unit);
}

/** Whether an instant is midnight UTC (a period of whole days can be read from the daily rollups). */
export const isMidnight = (d: Date) => d.getTime() % DAY_MS === 0;
