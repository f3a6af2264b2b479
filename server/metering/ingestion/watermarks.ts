/**
 * Completeness watermarks (contract/usage-completeness.ts). Each sender's watermark only moves
 * forward; the organization is complete through the earliest watermark of the senders that sent
 * one recently, so one service's progress never vouches for another's. An event a sender stores
 * after its own watermark passed the event's time is counted as late for its period.
 */
import { type SQL, sql } from "drizzle-orm";
import { type UsageCompleteness, WATERMARK_RECENT_DAYS } from "../../../contract/usage-completeness";
import { DAY_MS } from "../../../contract/utc-calendar";
import type { Db } from "../../platform/database";
import { arrayLiteral } from "../shared/sql-arrays";

type Rows<T> = { rows: T[] };
const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

/** The sender's watermark before a batch; null when it never sent one. */
export async function senderWatermark(
  db: Db,
  organizationUuid: string,
  source: string,
): Promise<Date | null> {
  const result = (await db.execute(sql`
    select complete_through from usage_watermarks
     where organization_uuid = ${organizationUuid} and source = ${source}`)) as unknown as Rows<{
    complete_through: Date | string;
  }>;
  const row = result.rows[0];
  return row ? new Date(row.complete_through) : null;
}

/** A late event as the completeness answer lists it. */
export type LateEvent = { event_id: string; occurred_at: string; received_at: string };

/**
 * Which of `eventIds` this batch stored (not duplicates of earlier batches): stored after `since`,
 * found through their keys (the events' primary path; usage_events has no event_id index). A late
 * event's occurred_at is the time it is billed at; it happened at late_occurred_at.
 */
export async function storedSince(
  db: Db,
  organizationUuid: string,
  eventIds: string[],
  since: string,
): Promise<LateEvent[]> {
  if (!eventIds.length) return [];
  const result = (await db.execute(sql`
    select k.event_id, coalesce(e.late_occurred_at, e.occurred_at) as occurred_at, e.ingested_at
      from usage_event_keys k
      join usage_events e on e.organization_uuid = k.organization_uuid and e.occurred_at = k.occurred_at
                         and e.event_id = k.event_id
     where k.organization_uuid = ${organizationUuid}
       and k.event_id = any(${arrayLiteral(eventIds)}::text[])
       and e.ingested_at > ${since}::timestamptz
     order by e.occurred_at desc, k.event_id
     limit 1000`)) as unknown as Rows<{
    event_id: string;
    occurred_at: Date | string;
    ingested_at: Date | string;
  }>;
  return result.rows.map((r) => ({
    event_id: r.event_id,
    occurred_at: new Date(r.occurred_at).toISOString(),
    received_at: new Date(r.ingested_at).toISOString(),
  }));
}

/** How many late events each sender keeps listed (newest first). */
export const LATE_EVENTS_LISTED = 20;

/**
 * The database's clock (what ingested_at defaults to) for storedSince, as its own text: to the
 * microsecond, which a JavaScript Date would round to the millisecond.
 */
export async function databaseNow(db: Db): Promise<string> {
  const result = (await db.execute(sql`select now()::text as now`)) as unknown as Rows<{ now: string }>;
  const now = result.rows[0]?.now;
  if (!now) throw new Error("unreachable: now() returned no row");
  return now;
}

/** Moves the sender's watermark forward (never back) and adds its late events. */
export async function recordWatermark(
  db: Db,
  organizationUuid: string,
  source: string,
  update: { completeThrough: Date | null; late: LateEvent[] },
) {
  const count = update.late.length;
  const listed = JSON.stringify(update.late.slice(0, LATE_EVENTS_LISTED));
  // The newest first, then the ones listed before, LATE_EVENTS_LISTED in all.
  const recent = (old: SQL) => sql`coalesce((
    select jsonb_agg(v order by i) from (
      select v, i from jsonb_array_elements(${listed}::jsonb || ${old}) with ordinality t(v, i)
       order by i limit ${LATE_EVENTS_LISTED}) s), '[]'::jsonb)`;
  if (update.completeThrough) {
    await db.execute(sql`
      insert into usage_watermarks (organization_uuid, source, complete_through, late_events, last_late_at, late_recent)
      values (${organizationUuid}, ${source}, ${update.completeThrough.toISOString()}::timestamptz, ${count},
              ${count > 0 ? sql`now()` : sql`null`}, ${recent(sql`'[]'::jsonb`)})
      on conflict (organization_uuid, source) do update set
        complete_through = greatest(usage_watermarks.complete_through, excluded.complete_through),
        updated_at = now(),
        late_events = usage_watermarks.late_events + excluded.late_events,
        last_late_at = coalesce(excluded.last_late_at, usage_watermarks.last_late_at),
        late_recent = ${recent(sql`usage_watermarks.late_recent`)}`);
  } else if (count > 0) {
    await db.execute(sql`
      update usage_watermarks set late_events = late_events + ${count}, last_late_at = now(),
             late_recent = ${recent(sql`usage_watermarks.late_recent`)}
       where organization_uuid = ${organizationUuid} and source = ${source}`);
  }
}

/** The organization's completeness as the dashboard shows it. */
export async function usageCompleteness(
  db: Db,
  organizationUuid: string,
  now = new Date(),
): Promise<UsageCompleteness> {
  const recent = new Date(now.getTime() - WATERMARK_RECENT_DAYS * DAY_MS).toISOString();
  const result = (await db.execute(sql`
    select min(complete_through) filter (where updated_at > ${recent}::timestamptz) as complete_through,
           (count(*) filter (where updated_at > ${recent}::timestamptz))::int as senders,
           coalesce(sum(late_events), 0)::bigint::text as late_events,
           max(last_late_at) as last_late_at,
           coalesce(jsonb_agg(late_recent), '[]'::jsonb) as late_recent
      from usage_watermarks where organization_uuid = ${organizationUuid}`)) as unknown as Rows<{
    late_recent: LateEvent[][] | string;
    complete_through: Date | string | null;
    senders: number;
    late_events: string;
    last_late_at: Date | string | null;
  }>;
  const row = result.rows[0];
  const lists =
    typeof row?.late_recent === "string"
      ? (JSON.parse(row.late_recent) as LateEvent[][])
      : (row?.late_recent ?? []);
  const late = lists
    .flat()
    .sort((a, b) => b.received_at.localeCompare(a.received_at) || a.event_id.localeCompare(b.event_id))
    .slice(0, LATE_EVENTS_LISTED);
  return {
    complete_through: iso(row?.complete_through ?? null),
    senders: Number(row?.senders ?? 0),
    late_events: Number(row?.late_events ?? 0),
    last_late_at: iso(row?.last_late_at ?? null),
    recent_late_events: late,
    data_as_of: now.toISOString(),
  };
}
