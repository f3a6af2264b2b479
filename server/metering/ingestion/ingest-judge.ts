// Ingestion's first steps: reading a call's events and judging each against the organization's
// configuration (refused, a repeat, awaiting pricing, or a priced row), before anything is stored.
import { formatUsdExact } from "../../../contract/money";
import type { Actor } from "../../platform/audit";
import type { EventRow, StoredRow } from "./event-store";
import { MalformedEvent, utcDay, type ValidEvent, validateEvent } from "./events";
import type { ingestConfigCache } from "./ingest-config";
import { billingTime, closedCycleAt, lateMarker } from "./late-usage";
import { EARLIEST_OCCURRED_AT, MAX_EVENT_COST_MICROS, MAX_EVENT_COST_USD, oldestAccepted } from "./limits";

export type Rejection = { index: number; event_id: string | null; reason: string };

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

export type Valid = { index: number; event: ValidEvent };

/** The events of a call that pass validation on their own; the others' rejections. */
export function readEvents(raw: readonly unknown[], now: Date): { rejected: Rejection[]; valid: Valid[] } {
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
export type Batch = {
  rows: Map<string, EventRow>;
  /** Events no price rule matches: kept, awaiting pricing (they need no partition until priced). */
  awaiting: Map<string, StoredRow>;
  /** Each stored event's index in the call, for a later rejection. */
  indexOf: Map<string, number>;
  rejected: Rejection[];
  duplicates: number;
};

export type IngestConfig = Awaited<ReturnType<ReturnType<typeof ingestConfigCache>["get"]>>;

/**
 * Judges each valid event against the organization's configuration: refused (an adjustment
 * without the right, before the acceptance floor, an unknown workspace, a cost past the limit),
 * a repeat within the batch, awaiting pricing, or a priced row (late usage billed in the open cycle).
 */
export function judgeEvents(
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
