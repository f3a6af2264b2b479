// Dates on the billing page, all in UTC (billing cycles and usage are recorded in UTC) with a
// short month: "Jan 5, 2026". The one place the page formats dates, on dayjs's utc mode.
import dayjs, { type Dayjs } from "dayjs";
import utc from "dayjs/plugin/utc";
import type { Grouping } from "../../../contract/usage-schemas";

dayjs.extend(utc);

/** A YYYY-MM-DD day (midnight UTC) or an ISO instant, in UTC; null when missing or unreadable. */
function utcDay(value: string | null | undefined): Dayjs | null {
  if (!value) return null;
  const d = dayjs.utc(value);
  return d.isValid() ? d : null;
}

const format = (value: string | null | undefined, pattern: string, fallback = "-") =>
  utcDay(value)?.format(pattern) ?? fallback;

/** "Jan 5, 2026" (UTC); "-" when missing. */
export const formatUtcDate = (value: string | null | undefined): string => format(value, "MMM D, YYYY");

/** "Jan 5, 2026, 14:03 UTC": a record's time. */
export const formatUtcDateTime = (value: string | null | undefined): string =>
  format(value, "MMM D, YYYY, HH:mm [UTC]");

/** "14:03:27 UTC": the time of day of a freshness stamp. */
export const formatUtcTime = (value: string | null | undefined): string => format(value, "HH:mm:ss [UTC]");

/**
 * The stepper's label: "Jan 1, 2026 - Feb 1, 2026", or "... - Present" for the current cycle.
 * The end date is shown as the API gives it.
 */
export function periodLabel(start: string, end: string | null | undefined): string {
  return `${formatUtcDate(start)} - ${end ? formatUtcDate(end) : "Present"}`;
}

/** A chart bucket's axis label: "Jan 5" (daily, weekly: the week's Sunday) or "Jan 2026" (monthly). */
export function bucketLabel(day: string, grouping: Grouping): string {
  return format(day, grouping === "monthly" ? "MMM YYYY" : "MMM D", day);
}

/** The chart tooltip's title: "Jan 5, 2026", "Week of Jan 4, 2026" or "Jan 2026". */
export function bucketTitle(day: string, grouping: Grouping): string {
  if (grouping === "monthly") return format(day, "MMM YYYY", day);
  return grouping === "weekly" ? `Week of ${formatUtcDate(day)}` : formatUtcDate(day);
}

/** The export's file name for a moment: usage_data_2026-01-05.csv (UTC day). */
export function exportFileName(now: Date = new Date()): string {
  return `usage_data_${dayjs(now).utc().format("YYYY-MM-DD")}.csv`;
}
