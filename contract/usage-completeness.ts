/**
 * Completeness, not just freshness: eval services may send `Usage-Complete-Through: <time>` with a
 * batch (POST /v1/usage/events), meaning they have sent every event up to that time. The dashboard
 * and GET /v1/usage/completeness then say "complete through T" beside "Data as of", and count the
 * events that still arrived for earlier periods since; without a watermark they say so plainly.
 */
import { z } from "zod";

/** The request header of POST /v1/usage/events (HTTP headers are case-insensitive). */
export const USAGE_WATERMARK_HEADER = "Usage-Complete-Through";
/** A sender whose watermark has not moved for this long no longer holds the organization's back. */
export const WATERMARK_RECENT_DAYS = 7;

export const UsageCompletenessSchema = z
  .object({
    complete_through: z.iso
      .datetime()
      .nullable()
      .meta({
        description:
          `Every sender that sent a watermark in the last ${WATERMARK_RECENT_DAYS} days has sent all its usage up to this time ` +
          "(the earliest of their watermarks); null when none did: recent usage may still be arriving.",
      }),
    senders: z.int().meta({ description: "How many senders' watermarks that is the earliest of." }),
    late_events: z.int().meta({
      description:
        "Events stored after their sender's watermark had passed their time: late for a period reported complete.",
    }),
    last_late_at: z.iso.datetime().nullable().meta({ description: "When the latest of them arrived." }),
    recent_late_events: z
      .array(
        z.object({
          event_id: z.string(),
          occurred_at: z.iso.datetime().meta({ description: "When it happened." }),
          received_at: z.iso.datetime().meta({ description: "When it was stored." }),
        }),
      )
      .meta({ description: "The latest of them (at most 20), newest first: the dashboard lists them." }),
    data_as_of: z.iso.datetime(),
  })
  .meta({ id: "UsageCompleteness" });
export type UsageCompleteness = z.infer<typeof UsageCompletenessSchema>;
