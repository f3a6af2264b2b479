import { sql } from "drizzle-orm";
import { bigint, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestamptz, updatedAt } from "./columns";

/**
 * Completeness watermarks: an eval service that sends Usage-Complete-Through: T with a batch says
 * it has sent every event up to T. One row per organization and sender (an ingestion key, or an
 * operator), so two services each vouch for their own usage; the organization is complete through
 * the earliest of its recent senders' watermarks (server/metering/ingestion/watermarks.ts).
 */
export const usageWatermarks = pgTable(
  "usage_watermarks",
  {
    organizationUuid: text("organization_uuid").notNull(),
    /** "key:<ingest key uuid>" or "operator:<user id>". */
    source: text("source").notNull(),
    /** Never moves back: a lower value sent later is ignored. */
    completeThrough: timestamptz("complete_through").notNull(),
    updatedAt: updatedAt(),
    /** Events this sender stored after its watermark had passed their time (late for their period). */
    lateEvents: bigint("late_events", { mode: "number" }).notNull().default(0),
    lastLateAt: timestamptz("last_late_at"),
    /** The latest of them (at most 20), newest first: {event_id, occurred_at, received_at}. */
    lateRecent: jsonb("late_recent").notNull().default(sql`'[]'::jsonb`),
  },
  (t) => [primaryKey({ name: "usage_watermarks_pkey", columns: [t.organizationUuid, t.source] })],
);
