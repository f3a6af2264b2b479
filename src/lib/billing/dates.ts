// Dates on the billing page are UTC with a short month: "Jan 5, 2026".
import type { Grouping } from "./types";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

/** A YYYY-MM-DD day or an ISO instant as a Date (a bare day is midnight UTC); null when unreadable. */
export function parseUtc(value: string | null | undefined): Date | null {
  if (!value) return null;
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "Jan 5, 2026" (UTC); "-" when missing. */
export function formatUtcDate(value: string | null | undefined): string {
  const d = parseUtc(value);
  if (!d) return "-";
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** "Jan 5, 2026, 14:03 UTC": a record's time. */
export function formatUtcDateTime(value: string | null | undefined): string {
  const d = parseUtc(value);
  if (!d) return "-";
  return `${formatUtcDate(value)}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

/** "14:03:27 UTC": the time of day of a freshness stamp. */
export function formatUtcTime(value: string | null | undefined): string {
  const d = parseUtc(value);
  if (!d) return "-";
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
}

/**
 * The stepper's label: "Jan 1, 2026 - Feb 1, 2026", or "... - Present" for the current cycle.
 * The end date is shown as the API gives it.
 */
export function periodLabel(start: string, end: string | null | undefined): string {
  return `${formatUtcDate(start)} - ${end ? formatUtcDate(end) : "Present"}`;
}

/** A chart bucket's axis label: "Jan 5" (daily, weekly: the week's Sunday) or "Jan 2026" (monthly). */
export function bucketLabel(day: string, grouping: Grouping): string {
  const d = parseUtc(day);
  if (!d) return day;
  const month = MONTHS[d.getUTCMonth()];
  return grouping === "monthly" ? `${month} ${d.getUTCFullYear()}` : `${month} ${d.getUTCDate()}`;
}

/** The chart tooltip's title: "Jan 5, 2026", "Week of Jan 4, 2026" or "Jan 2026". */
export function bucketTitle(day: string, grouping: Grouping): string {
  if (grouping === "monthly") {
    const d = parseUtc(day);
    return d ? `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}` : day;
  }
  return grouping === "weekly" ? `Week of ${formatUtcDate(day)}` : formatUtcDate(day);
}

/** The export's file name for a moment: usage_data_2026-01-05.csv (UTC day). */
export function exportFileName(now: Date = new Date()): string {
  return `usage_data_${now.toISOString().slice(0, 10)}.csv`;
}
