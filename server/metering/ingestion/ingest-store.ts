// Ingestion's last steps: storing a judged batch in one transaction (events, rollups, audit rows,
// budget alerts) and what follows its commit (alert emails, pricing that a change meanwhile asks for).
import { sql } from "drizzle-orm";
import { formatUsdExact } from "../../../contract/money";
import { writeAudit } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { evaluateIngestedBudgets } from "../budgets/eval";
import { noticeBudgetAlerts } from "../budgets/notify";
import { priceAwaitingEvents } from "../pricing/awaiting-pricing";
import { rerateEvents } from "../pricing/rerate";
import { monthOf } from "../shared/partitions";
import { addToRollups } from "../shared/rollups";
import { addToRunRollup } from "../shared/run-rollup";
import { arrayLiteral } from "../shared/sql-arrays";
import { rollUp } from "./daily-rollup";
import { type EventRow, insertEvents, type StoredRow } from "./event-store";
import { ingestConfigCache } from "./ingest-config";
import type { Batch, IngestConfig, IngestOptions } from "./ingest-judge";

/** Marks awaiting events of the organization as backfilled; whether any was. */
async function allowBackfill(db: Db, organizationUuid: string, eventIds: string[]): Promise<boolean> {
  const result = (await db.execute(sql`
    update usage_events_awaiting set backfill = true, held_reason = null
     where organization_uuid = ${organizationUuid} and event_id = any(${arrayLiteral(eventIds)}::text[])
       and not backfill
    returning event_id`)) as unknown as { rows: unknown[] };
  return result.rows.length > 0;
}

/**
 * Takes the rows of archived months out of the batch: a duplicate when their event_id is stored
 * already (in the archive), else rejected until an operator restores the month.
 */
export async function dropArchivedMonths(
  db: Db,
  organizationUuid: string,
  batch: Batch,
  archived: Set<string>,
) {
  if (!archived.size) return;
  const inArchived = [...batch.rows.values()].filter((r) => archived.has(monthOf(r.occurredAt)));
  const stored = (await db.execute(sql`
    select event_id from usage_event_keys where organization_uuid = ${organizationUuid}
       and event_id = any(${arrayLiteral(inArchived.map((r) => r.eventId))}::text[])`)) as unknown as {
    rows: { event_id: string }[];
  };
  const taken = new Set(stored.rows.map((r) => r.event_id));
  for (const r of inArchived) {
    const eventId = r.eventId;
    const month = monthOf(r.occurredAt);
    batch.rows.delete(eventId);
    if (taken.has(eventId)) {
      batch.duplicates += 1;
      continue;
    }
    batch.rejected.push({
      index: batch.indexOf.get(eventId) ?? -1,
      event_id: eventId,
      reason: `occurred_at ${r.occurredAt.toISOString()} falls in ${month}, whose events are archived; an operator must restore that month before it takes more`,
    });
  }
}

/** The rows to insert, sorted by event_id so concurrent batches wait on each other instead of deadlocking. */
export const pendingRows = (batch: Batch): StoredRow[] =>
  [...batch.rows.values(), ...batch.awaiting.values()].sort((a, b) =>
    a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0,
  );

/** What one store of a batch did: events stored (held ones among them, and late ones), their ids. */
export type Stored = {
  accepted: number;
  held: number;
  late: number;
  ids: Set<string>;
  alertsChanged: boolean;
};

/**
 * Stores the batch in one transaction: the events (each once per organization and event_id), the
 * rollups and usage version, the audit rows of operators' adjustments, and the budget alerts.
 */
export async function storeBatch(
  tx: Tx,
  batch: Batch,
  pending: StoredRow[],
  ctx: {
    organizationUuid: string;
    cycles: IngestConfig["cycles"];
    budgets: boolean;
    now: Date;
    opts: IngestOptions;
  },
): Promise<Stored> {
  const { organizationUuid, opts } = ctx;
  const inserted: EventRow[] = [];
  let held = 0;
  let late = 0;
  const ids = await insertEvents(tx, organizationUuid, pending);
  for (const eventId of ids) {
    const row = batch.rows.get(eventId);
    if (row) {
      inserted.push(row);
      if (row.lateOccurredAt) late += 1;
    } else if (batch.awaiting.has(eventId)) held += 1;
  }
  // Both rollups and the usage version (the usage caches key on it), in this transaction.
  await addToRollups(tx, organizationUuid, rollUp(organizationUuid, inserted));
  await addToRunRollup(tx, organizationUuid, inserted);
  const by = typeof opts.adjustments === "object" ? opts.adjustments.by : null;
  if (by)
    for (const row of inserted)
      if (row.adjustment)
        await writeAudit(tx, {
          organizationUuid,
          actor: by,
          action: "usage.adjustment_recorded",
          target: { type: "usage_event", id: row.eventId, label: row.notes },
          after: {
            cost: formatUsdExact(row.costMicros),
            notes: row.notes,
            occurred_at: row.occurredAt.toISOString(),
          },
        });
  // Budget alerts of the spend this batch changed, in its transaction (never refuses usage).
  const alertsChanged =
    ctx.budgets && inserted.length > 0
      ? (await evaluateIngestedBudgets(tx, organizationUuid, ctx.cycles, inserted, ctx.now)).length > 0
      : false;
  return { accepted: inserted.length + held, held, late, ids: new Set(ids), alertsChanged };
}

/**
 * What follows a committed batch: its budget alerts' emails, and pricing that a price change
 * committed meanwhile (or an operator's backfill) calls for.
 */
export async function afterStore(
  db: Db,
  organizationUuid: string,
  batch: { config: IngestConfig; pending: StoredRow[]; stored: Stored; now: Date; opts: IngestOptions },
) {
  const { config, pending, stored, now, opts } = batch;
  if (stored.alertsChanged) noticeBudgetAlerts(db, organizationUuid);
  // A rule committed after this batch read the configuration may cover what it just held: the
  // pricing run that rule's change started may have looked before these rows were committed.
  const changed =
    stored.accepted > 0 && (await ingestConfigCache(db).get(organizationUuid)).version !== config.version;
  let priceAgain = stored.held > 0 && changed;
  // Likewise a rule committed after this batch priced its events: its re-rating may have passed
  // them already, so these are re-rated here (rerate.ts; a no-op when their price stands).
  if (changed && stored.accepted > stored.held)
    await rerateEvents(db, organizationUuid, [...stored.ids], { now });
  // An operator's backfill resending events held awaiting pricing (their cycle closed since):
  // duplicates, but now allowed into their closed cycle, so they are priced.
  if (opts.backfill) {
    const resent = pending.filter((r) => !stored.ids.has(r.eventId)).map((r) => r.eventId);
    if (resent.length && (await allowBackfill(db, organizationUuid, resent))) priceAgain = true;
  }
  if (priceAgain) await priceAwaitingEvents(db, organizationUuid, { now });
}
