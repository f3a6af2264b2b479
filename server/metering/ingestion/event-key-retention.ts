// The retention of usage_event_keys, the idempotency key of every stored usage event. Without it
// the table grows by one row per event for ever (it is kept even when a month of events is
// archived). A key may only go once its event can no longer be sent again and accepted, otherwise
// the resend would be stored a second time: ingestion rejects events older than USAGE_MAX_AGE_DAYS
// (limits.ts, oldestAccepted), so the keys of events older than that, with a day to spare, go.
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../platform/database";
import { keysExpireBefore } from "./limits";

/** Keys read per statement: each statement is short, so ingestion and reads keep their turns. */
export const KEY_PAGE = 10_000;

type Page = { last_org: string | null; last_event: string | null; seen: string; deleted: string };

/**
 * Deletes the idempotency keys whose stored time lies before keysExpireBefore(now, maxAgeDays);
 * answers how many went. None with a horizon of 0 (every date is accepted, so every key is kept).
 *
 * A key's time is its event's stored occurred_at, never earlier than when the event happened (a
 * late event is stored at the time it was billed), so a deleted key's event is always older than
 * the horizon: sent again, it is rejected, not counted twice.
 *
 * The table's only index is its primary key (organization_uuid, event_id): the run walks it in
 * pages of KEY_PAGE keys in key order (one short statement each, bounded work however large the
 * table) and deletes the expired keys of each page, rather than one long scan of the whole table.
 */
export async function purgeExpiredEventKeys(db: Db, maxAgeDays: number, now = new Date()): Promise<number> {
  const before = keysExpireBefore(now, maxAgeDays);
  if (!before) return 0;
  let after: [string, string] | null = null;
  let deleted = 0;
  for (;;) {
    const from: SQL = after ? sql`where (organization_uuid, event_id) > (${after[0]}, ${after[1]})` : sql``;
    const result: unknown = await db.execute(sql`
      with page as (
        select organization_uuid, event_id, occurred_at from usage_event_keys ${from}
         order by organization_uuid, event_id limit ${KEY_PAGE}
      ),
      gone as (
        delete from usage_event_keys k using page
         where k.organization_uuid = page.organization_uuid and k.event_id = page.event_id
           and page.occurred_at < ${before.toISOString()}::timestamptz
        returning 1
      ),
      last as (select organization_uuid, event_id from page order by organization_uuid desc, event_id desc limit 1)
      select (select organization_uuid from last) as last_org, (select event_id from last) as last_event,
             (select count(*) from page)::text as seen, (select count(*) from gone)::text as deleted`);
    const row: Page | undefined = (result as { rows: Page[] }).rows[0];
    deleted += Number(row?.deleted ?? 0);
    if (!row || Number(row.seen) < KEY_PAGE || row.last_org === null || row.last_event === null) break;
    after = [row.last_org, row.last_event];
  }
  return deleted;
}
