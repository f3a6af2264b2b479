// The completeness note's words (completeness-note.tsx), apart from the page so they are tested.
import type { UsageCompleteness } from "../../../contract/usage-completeness";

export function completenessText(
  c: Pick<UsageCompleteness, "complete_through">,
  when: (iso: string) => string,
) {
  return c.complete_through ? `Complete through ${when(c.complete_through)}` : "Completeness not reported";
}

/** null when no event arrived late. */
export function lateEventsText(c: Pick<UsageCompleteness, "late_events">): string | null {
  if (!c.late_events) return null;
  return `${c.late_events.toLocaleString("en-US")} ${c.late_events === 1 ? "event" : "events"} arrived late`;
}
