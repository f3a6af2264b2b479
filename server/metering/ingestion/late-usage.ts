/**
 * Late usage and closed-cycle corrections: where they are billed and how they are labelled. A
 * closed billing cycle never changes, so usage that belongs to one (an event sent after it closed,
 * or the difference a later price makes to its events) is billed in the open cycle, at the time it
 * is billed, and keeps the period it belongs to (usage_events.late_period_start/end; a late event
 * also keeps when it happened, late_occurred_at, the time it is priced at). Pure functions.
 */

import type { Cycle } from "../billing/cycles";
import { utcDay } from "./events";

/** The closed cycle holding `day` ("YYYY-MM-DD"), if any (cycles sorted by start date). */
export function closedCycleAt(cycles: readonly Cycle[], day: string): Cycle | undefined {
  return cycles.find((c) => c.endDate !== null && c.startDate <= day && day < c.endDate);
}

/**
 * When late usage is billed: now, or the end of the last closed cycle when a cycle was closed at
 * a later day (so the line can never fall in a closed cycle itself). With no open cycle, that time
 * lies after every closed one: the line belongs to the next cycle opened from there.
 */
export function billingTime(cycles: readonly Cycle[], now: Date): Date {
  let at = now;
  for (const c of cycles)
    if (c.endDate !== null) {
      const end = new Date(`${c.endDate}T00:00:00Z`);
      if (end > at) at = end;
    }
  return at;
}

/** The marker columns of usage billed late for `closed`. */
export const lateMarker = (closed: Cycle, occurredAt: Date | null) => ({
  lateOccurredAt: occurredAt,
  latePeriodStart: closed.startDate,
  latePeriodEnd: closed.endDate,
});

const fmt = new Intl.DateTimeFormat("en-US", {
  month: "short",
  day: "numeric",
  year: "numeric",
  timeZone: "UTC",
});
const short = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });

/** "Oct 1 – Nov 1, 2026" (the year once when both days share it), as the console shows periods. */
export function periodLabel(startDate: string, endDate: string): string {
  const start = new Date(`${startDate}T00:00:00Z`);
  const end = new Date(`${endDate}T00:00:00Z`);
  const sameYear = start.getUTCFullYear() === end.getUTCFullYear();
  return `${(sameYear ? short : fmt).format(start)} – ${fmt.format(end)}`;
}

/** The note of a closed cycle's price correction line: names the cycle and the rule version. */
export function correctionNote(
  closed: Cycle,
  rule: { priceRuleUuid: string; version?: number },
  events: number,
): string {
  const period = periodLabel(closed.startDate, closed.endDate ?? closed.startDate);
  return `Price correction for ${period} (closed billing cycle ${closed.billingCycleUuid}): price rule ${rule.priceRuleUuid} version ${rule.version ?? 1}, ${events} ${events === 1 ? "event" : "events"}`;
}

/** Whether the event's day lies in a closed cycle (and not backfilled there by an operator). */
export const lateFor = (cycles: readonly Cycle[], occurredAt: Date, backfill: boolean) =>
  backfill ? undefined : closedCycleAt(cycles, utcDay(occurredAt));
