import { sql } from "drizzle-orm";
import { formatUsdExact } from "../../../contract/money";
import type { usageDaily } from "../../db/schema";
import { type Actor, writeAudit } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { cachedBudgets } from "../budgets/cache";
import { evaluateIngestedBudgets } from "../budgets/eval";
import { noticeBudgetAlerts } from "../budgets/notify";
import { priceAwaitingEvents } from "../pricing/awaiting-pricing";
import { rerateEvents } from "../pricing/rerate";
import { ensureMonths, forgetMonths, isMissingPartition, monthOf } from "../shared/partitions";
import { addToRollups } from "../shared/rollups";
import { addToRunRollup } from "../shared/run-rollup";
import { arrayLiteral } from "../shared/sql-arrays";
import { type EventRow, insertEvents, type StoredRow } from "./event-store";
import { MalformedEvent, utcDay, type ValidEvent, validateEvent } from "./events";
import { ingestConfigCache } from "./ingest-config";
import { billingTime, closedCycleAt, lateMarker } from "./late-usage";
import { EARLIEST_OCCURRED_AT, MAX_EVENT_COST_MICROS, MAX_EVENT_COST_USD, oldestAccepted } from "./limits";

export type Rejection = { index: number; event_id: string | null; reason: string };
/**
 * accepted counts every event stored by the call, awaiting_pricing those of them that no price rule
 * matched: kept (their event_id taken) and priced as soon as an operator sets a rule that covers
 * them (awaiting-pricing.ts), never billed as $0.
 */
export type IngestResult = {
  accepted: number;
  awaiting_pricing: number;
  /** Of the accepted and priced events, those whose day lies in a closed cycle: billed late, in the open one. */
  late: number;
  duplicates: number;
  rejected: Rejection[];
};

type DailyRow = typeof usageDaily.$inferInsert;

// An event's usage_daily dimensions, with the defaults its stored row gets too. Events are folded
// by all of them: two keys must never name one usage_daily_dims_key row, or the single upsert
// would update that row twice (an error in PostgreSQL).
const dailyDimensions = (r: EventRow) => ({
  day: utcDay(r.occurredAt),
  workspaceUuid: r.workspaceUuid ?? null,
  operation: r.operation,
  evalType: r.evalType,
  modality: r.modality ?? "",
  isJailbreak: r.isJailbreak ?? false,
  hasGroundTruth: r.hasGroundTruth ?? false,
  ruleMetric: r.ruleMetric ?? "eval",
});

/**
 * The fold key of the dimensions: NUL separates the texts, which cannot contain it (events.ts
 * refuses it), so two different sets of dimensions never share a key; a workspace uuid is never "".
 */
const dailyKey = (d: ReturnType<typeof dailyDimensions>) =>
  `${d.day}\u0000${d.workspaceUuid ?? ""}\u0000${d.operation}\u0000${d.evalType}\u0000${d.modality}\u0000${d.isJailbreak ? 1 : 0}${d.hasGroundTruth ? 1 : 0}\u0000${d.ruleMetric}`;

/** Folds events into one usage_daily row per day and dimensions. */
export function rollUp(organizationUuid: string, rows: EventRow[]): DailyRow[] {
  const byKey = new Map<string, DailyRow>();
  for (const r of rows) {
    const dimensions = dailyDimensions(r);
    const key = dailyKey(dimensions);
    const d = byKey.get(key);
    if (d) {
      d.eventCount += 1;
      d.quantitySum += r.quantity ?? 1;
      d.costMicrosSum += r.costMicros;
    } else
      byKey.set(key, {
        organizationUuid,
        ...dimensions,
        eventCount: 1,
        quantitySum: r.quantity ?? 1,
        costMicrosSum: r.costMicros,
      });
  }
  // A fixed order keeps concurrent transactions from locking the same rows in opposite orders.
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

export type IngestOptions = {
  /** The server clock (tests pin it). */
  now?: Date;
  /**
   * Operator backfill: events in closed billing cycles are billed there (without it, such an event
   * is late usage, billed in the open cycle).
   */
  backfill?: boolean;
  /**
   * Who may send explicit costs (price adjustments): nobody by default (such events are rejected),
   * a provider operator (each stored adjustment is written to audit_log with its notes), or the
   * demo seed ("unaudited").
   */
  adjustments?: { by: Actor } | "unaudited";
  /**
   * USAGE_MAX_AGE_DAYS: events older than this many days (before today, UTC) are rejected, so
   * that the retention of idempotency keys never lets a resend count twice. Unset or 0: no horizon.
   */
  maxAgeDays?: number;
};

/** Why an event with an explicit cost is refused from a caller that is not an operator. */
export const ADJUSTMENT_REFUSED =
  "cost is for price adjustments, which only provider operators can make; send the usage without cost and it is priced by the price rules";

type Price = Pick<EventRow, "unitPriceMicros" | "costMicros" | "priceRuleUuid">;
/** No price yet: an accepted event's row in usage_events_awaiting. */
const UNPRICED: Price = { unitPriceMicros: 0n, costMicros: 0n, priceRuleUuid: null };

/** An accepted event's row: in usage_events with its price, or awaiting pricing without one. */
const eventRow = (organizationUuid: string, e: ValidEvent, price: Price = UNPRICED): EventRow => ({
  organizationUuid,
  eventId: e.eventId,
  occurredAt: e.occurredAt,
  workspaceUuid: e.workspaceUuid,
  evalUuid: e.evalUuid,
  evalRunUuid: e.evalRunUuid,
  name: e.name,
  operation: e.operation,
  evalType: e.evalType,
  modality: e.modality,
  isJailbreak: e.isJailbreak,
  hasGroundTruth: e.hasGroundTruth,
  createdBy: e.createdBy,
  quantity: e.quantity,
  ruleMetric: e.ruleMetric,
  notes: e.notes,
  // The stored fact of what the event is: it came with its own cost (a credit or a charge).
  adjustment: e.costMicros !== null,
  ...price,
});

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
 * Validates, prices and stores a batch of usage events for one organization. Each event is judged
 * on its own; the valid ones are stored once per (organization, event_id) — their keys inserted
 * with ON CONFLICT DO NOTHING — and only the events actually stored are added to the rollups, in
 * the same transaction, so a batch sent twice (or by several clients at once) counts every event
 * exactly once. An event whose day lies in a closed billing cycle is late usage: billed in the
 * open cycle and marked with its period (late-usage.ts), unless `backfill` is set (an operator's
 * decision to bill it in the closed cycle). The organization's price rules, cycles and workspaces come from the
 * per-process cache of ingest-config.ts, checked against their version first.
 */
export async function ingestUsage(
  db: Db,
  organizationUuid: string,
  raw: readonly unknown[],
  opts: IngestOptions = {},
): Promise<IngestResult> {
  const now = opts.now ?? new Date();
  const { rejected, valid } = readEvents(raw, now);
  if (!valid.length) return { accepted: 0, awaiting_pricing: 0, late: 0, duplicates: 0, rejected };

  const configs = ingestConfigCache(db);
  const config = await configs.get(organizationUuid);
  const wsIds = new Set<string>();
  for (const v of valid) if (v.event.workspaceUuid) wsIds.add(v.event.workspaceUuid);
  const known = wsIds.size ? await configs.liveWorkspaces(config, organizationUuid, [...wsIds]) : wsIds;
  const batch = judgeEvents(organizationUuid, valid, { config, known, now, opts }, rejected);

  // Every month of the batch has its partition before the insert (created here if new). A month
  // an operator archived takes no events: they would be split from the rest of their month.
  const monthsOfRows = () => [...new Set([...batch.rows.values()].map((r) => monthOf(r.occurredAt)))];
  if (batch.rows.size)
    await dropArchivedMonths(db, organizationUuid, batch, await ensureMonths(db, monthsOfRows()));

  // No query for an organization without budgets: cached with the configuration.
  const budgets = await cachedBudgets(db, config, organizationUuid);
  const context = { organizationUuid, cycles: config.cycles, budgets: budgets.length > 0, now, opts };
  let pending = pendingRows(batch);
  let stored: Stored = { accepted: 0, held: 0, late: 0, ids: new Set(), alertsChanged: false };
  if (pending.length) {
    try {
      stored = await db.transaction((tx: Tx) => storeBatch(tx, batch, pending, context));
    } catch (err) {
      // A month this process had seen was archived since: look the months up again, once.
      if (!isMissingPartition(err)) throw err;
      forgetMonths(db);
      await dropArchivedMonths(db, organizationUuid, batch, await ensureMonths(db, monthsOfRows()));
      pending = pendingRows(batch);
      if (pending.length) stored = await db.transaction((tx: Tx) => storeBatch(tx, batch, pending, context));
    }
  }
  await afterStore(db, organizationUuid, { config, pending, stored, now, opts });
  rejected.sort((a, b) => a.index - b.index);
  const duplicates = batch.duplicates + pending.length - stored.accepted;
  return {
    accepted: stored.accepted,
    awaiting_pricing: stored.held,
    late: stored.late,
    duplicates,
    rejected,
  };
}

type Valid = { index: number; event: ValidEvent };

/** The events of a call that pass validation on their own; the others' rejections. */
function readEvents(raw: readonly unknown[], now: Date): { rejected: Rejection[]; valid: Valid[] } {
  const rejected: Rejection[] = [];
  const valid: Valid[] = [];
  raw.forEach((item, index) => {
    if (item instanceof MalformedEvent) {
      rejected.push({ index, event_id: null, reason: item.reason });
      return;
    }
    const v = validateEvent(item, now);
    if (v.ok) valid.push({ index, event: v.event });
    else rejected.push({ index, event_id: v.eventId, reason: v.reason });
  });
  return { rejected, valid };
}

/** A batch on its way to storage: the priced rows, the rows awaiting pricing, what was refused. */
type Batch = {
  rows: Map<string, EventRow>;
  /** Events no price rule matches: kept, awaiting pricing (they need no partition until priced). */
  awaiting: Map<string, StoredRow>;
  /** Each stored event's index in the call, for a later rejection. */
  indexOf: Map<string, number>;
  rejected: Rejection[];
  duplicates: number;
};

type IngestConfig = Awaited<ReturnType<ReturnType<typeof ingestConfigCache>["get"]>>;

/**
 * Judges each valid event against the organization's configuration: refused (an adjustment
 * without the right, before the acceptance floor, an unknown workspace, a cost past the limit),
 * a repeat within the batch, awaiting pricing, or a priced row (late usage billed in the open cycle).
 */
function judgeEvents(
  organizationUuid: string,
  valid: Valid[],
  ctx: { config: IngestConfig; known: Set<string>; now: Date; opts: IngestOptions },
  rejected: Rejection[],
): Batch {
  const { config, known, now, opts } = ctx;
  const { cycles, price } = config;
  // Usage before the organization's first billing cycle belongs to no bill (backfill or not).
  const first = cycles[0];
  const cycleFloor = first ? new Date(`${first.startDate}T00:00:00Z`) : EARLIEST_OCCURRED_AT;
  // The acceptance horizon: an older event's key may have been deleted (event-key-retention.ts).
  const horizon = oldestAccepted(now, opts.maxAgeDays ?? 0);
  const floor = horizon && horizon > cycleFloor ? horizon : cycleFloor;
  const billAt = billingTime(cycles, now);
  const batch: Batch = { rows: new Map(), awaiting: new Map(), indexOf: new Map(), rejected, duplicates: 0 };
  const { rows, awaiting, indexOf } = batch;
  for (const { index, event: e } of valid) {
    const reject = (reason: string) => rejected.push({ index, event_id: e.eventId, reason });
    if (e.costMicros !== null && !opts.adjustments) {
      reject(ADJUSTMENT_REFUSED);
      continue;
    }
    if (e.occurredAt < floor) {
      reject(
        floor === horizon
          ? `occurred_at ${e.occurredAt.toISOString()} is more than ${opts.maxAgeDays} days old: usage is accepted from ${horizon.toISOString().slice(0, 10)} on`
          : first
            ? `occurred_at ${e.occurredAt.toISOString()} is before the organization's first billing cycle, which starts ${first.startDate}`
            : `occurred_at ${e.occurredAt.toISOString()} is before ${EARLIEST_OCCURRED_AT.toISOString().slice(0, 10)}, the earliest date usage can have`,
      );
      continue;
    }
    if (e.workspaceUuid && !known.has(e.workspaceUuid)) {
      reject(`workspace_uuid ${e.workspaceUuid} is not a workspace of this organization`);
      continue;
    }
    // Late usage: a closed cycle never changes, so the event is billed in the open cycle (at
    // billAt), priced at the time it happened and marked with its period (late-usage.ts).
    const closed = cycles.length && !opts.backfill ? closedCycleAt(cycles, utcDay(e.occurredAt)) : undefined;
    const priceable = {
      organizationUuid,
      operation: e.operation,
      evalType: e.evalType,
      modality: e.modality,
      ruleMetric: e.ruleMetric,
      occurredAt: e.occurredAt,
    };
    const rule = price(priceable);
    if (rows.has(e.eventId) || awaiting.has(e.eventId)) {
      batch.duplicates += 1; // repeated within the batch: the first occurrence counts
      continue;
    }
    if (!rule && e.costMicros === null) {
      awaiting.set(e.eventId, {
        ...eventRow(organizationUuid, e),
        awaiting: true,
        backfill: opts.backfill === true,
      });
      indexOf.set(e.eventId, index);
      continue;
    }
    const unitPriceMicros = rule?.unitPriceMicros ?? 0n;
    const costMicros = e.costMicros ?? unitPriceMicros * BigInt(e.quantity);
    if (costMicros > MAX_EVENT_COST_MICROS || costMicros < -MAX_EVENT_COST_MICROS) {
      reject(
        `the event's cost ($${formatUsdExact(costMicros)}: quantity × unit price) exceeds the limit of $${MAX_EVENT_COST_USD} per event; send it as several events`,
      );
      continue;
    }
    const row = eventRow(organizationUuid, e, {
      unitPriceMicros,
      costMicros,
      priceRuleUuid: rule?.priceRuleUuid ?? null,
    });
    rows.set(e.eventId, closed ? { ...row, occurredAt: billAt, ...lateMarker(closed, e.occurredAt) } : row);
    indexOf.set(e.eventId, index);
  }
  return batch;
}

/**
 * Takes the rows of archived months out of the batch: a duplicate when their event_id is stored
 * already (in the archive), else rejected until an operator restores the month.
 */
async function dropArchivedMonths(db: Db, organizationUuid: string, batch: Batch, archived: Set<string>) {
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
const pendingRows = (batch: Batch): StoredRow[] =>
  [...batch.rows.values(), ...batch.awaiting.values()].sort((a, b) =>
    a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0,
  );

/** What one store of a batch did: events stored (held ones among them, and late ones), their ids. */
type Stored = { accepted: number; held: number; late: number; ids: Set<string>; alertsChanged: boolean };

/**
 * Stores the batch in one transaction: the events (each once per organization and event_id), the
 * rollups and usage version, the audit rows of operators' adjustments, and the budget alerts.
 */
async function storeBatch(
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
async function afterStore(
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
