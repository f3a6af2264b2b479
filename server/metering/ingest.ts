import { and, inArray, sql } from "drizzle-orm";
import { formatUsdExact } from "../../contract/money";
import { liveWorkspacesOf } from "../db/live-workspaces";
import { type usageDaily, type usageEvents, workspaces } from "../db/schema";
import { type Actor, writeAudit } from "../platform/audit";
import type { Db, Tx } from "../platform/database";
import { type Cycle, listCycles } from "./cycles";
import { MalformedEvent, utcDay, type ValidEvent, validateEvent } from "./events";
import { EARLIEST_OCCURRED_AT, MAX_EVENT_COST_MICROS, MAX_EVENT_COST_USD } from "./limits";
import { loadPriceRules } from "./prices";
import { matchPriceRule, noRuleReason } from "./pricing";
import { addToRollups } from "./rollups";

export type Rejection = { index: number; event_id: string | null; reason: string };
export type IngestResult = { accepted: number; duplicates: number; rejected: Rejection[] };

type EventRow = typeof usageEvents.$inferInsert;
type DailyRow = typeof usageDaily.$inferInsert;

// An event's usage_daily dimensions, with the defaults its stored row gets too. Events are folded
// by all of them: two keys must never name one usage_daily_dims_key row, or the single upsert
// below would update that row twice (an error in PostgreSQL).
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

/** Folds events into one usage_daily row per day and dimensions. */
export function rollUp(organizationUuid: string, rows: EventRow[]): DailyRow[] {
  const byKey = new Map<string, DailyRow>();
  for (const r of rows) {
    const dimensions = dailyDimensions(r);
    const key = JSON.stringify(Object.values(dimensions));
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

/** Workspace uuids among `ids` that are live workspaces of the organization. */
async function ownWorkspaces(db: Db | Tx, organizationUuid: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .select({ id: workspaces.workspaceUuid })
    .from(workspaces)
    .where(and(liveWorkspacesOf(organizationUuid), inArray(workspaces.workspaceUuid, ids)));
  return new Set(rows.map((r) => r.id));
}

export type IngestOptions = {
  /** The server clock (tests pin it). */
  now?: Date;
  /** Operator backfill: events in closed billing cycles are accepted too. */
  backfill?: boolean;
  /**
   * Who may send explicit costs (price adjustments): nobody by default (such events are rejected),
   * a provider operator (each stored adjustment is written to audit_log with its notes), or the
   * demo seed ("unaudited").
   */
  adjustments?: { by: Actor } | "unaudited";
};

/** Why an event with an explicit cost is refused from a caller that is not an operator. */
export const ADJUSTMENT_REFUSED =
  "cost is for price adjustments, which only provider operators can make; send the usage without cost and it is priced by the price rules";

/** The closed cycle holding `at`, if any (cycles sorted by start date). */
function closedCycleAt(cycles: readonly Cycle[], at: Date): Cycle | undefined {
  const day = utcDay(at);
  return cycles.find((c) => c.endDate !== null && c.startDate <= day && day < c.endDate);
}

/**
 * Inserts event rows in one statement: the rows travel as a single JSON parameter and are
 * unpacked by jsonb_to_recordset, which is several times faster than a multi-row VALUES list with
 * 19 bind parameters per row (on PGlite above all). Returns the event ids actually inserted.
 */
async function insertEvents(tx: Tx, organizationUuid: string, rows: EventRow[]): Promise<string[]> {
  const json = JSON.stringify(
    rows.map((r) => {
      const d = dailyDimensions(r);
      return {
        event_id: r.eventId,
        occurred_at: r.occurredAt.toISOString(),
        workspace_uuid: d.workspaceUuid,
        eval_uuid: r.evalUuid ?? null,
        eval_run_uuid: r.evalRunUuid ?? null,
        name: r.name ?? null,
        operation: d.operation,
        eval_type: d.evalType,
        modality: d.modality,
        is_jailbreak: d.isJailbreak,
        has_ground_truth: d.hasGroundTruth,
        created_by: r.createdBy ?? null,
        quantity: r.quantity ?? 1,
        rule_metric: d.ruleMetric,
        // Micro-dollars as strings: JSON numbers would lose precision beyond 2^53.
        unit_price_micros: String(r.unitPriceMicros),
        cost_micros: String(r.costMicros),
        price_rule_uuid: r.priceRuleUuid ?? null,
        notes: r.notes ?? null,
      };
    }),
  );
  const result = await tx.execute(sql`
    insert into usage_events (organization_uuid, event_id, occurred_at, workspace_uuid, eval_uuid,
      eval_run_uuid, name, operation, eval_type, modality, is_jailbreak, has_ground_truth, created_by,
      quantity, rule_metric, unit_price_micros, cost_micros, price_rule_uuid, notes)
    select ${organizationUuid}, x.* from jsonb_to_recordset(${json}::jsonb) as x(event_id text,
      occurred_at timestamptz, workspace_uuid uuid, eval_uuid text, eval_run_uuid text, name text,
      operation text, eval_type text, modality text, is_jailbreak boolean, has_ground_truth boolean,
      created_by text, quantity bigint, rule_metric text, unit_price_micros bigint, cost_micros bigint,
      price_rule_uuid uuid, notes text)
    on conflict (organization_uuid, event_id) do nothing
    returning event_id`);
  return (result as unknown as { rows: { event_id: string }[] }).rows.map((r) => r.event_id);
}

/**
 * Validates, prices and stores a batch of usage events for one organization. Each event is judged
 * on its own; the valid ones are inserted with ON CONFLICT DO NOTHING on (organization, event_id)
 * and only the rows actually inserted are added to usage_daily, in the same transaction, so a
 * batch sent twice (or by several clients at once) counts every event exactly once. Events in a
 * closed billing cycle are rejected unless `backfill` is set (an operator's decision).
 */
export async function ingestUsage(
  db: Db,
  organizationUuid: string,
  raw: readonly unknown[],
  opts: IngestOptions = {},
): Promise<IngestResult> {
  const now = opts.now ?? new Date();
  const rejected: Rejection[] = [];
  const valid: { index: number; event: ValidEvent }[] = [];
  raw.forEach((item, index) => {
    if (item instanceof MalformedEvent) {
      rejected.push({ index, event_id: null, reason: item.reason });
      return;
    }
    const v = validateEvent(item, now);
    if (v.ok) valid.push({ index, event: v.event });
    else rejected.push({ index, event_id: v.eventId, reason: v.reason });
  });

  const rules = valid.length ? await loadPriceRules(db, organizationUuid) : [];
  const cycles = valid.length ? await listCycles(db, organizationUuid) : [];
  // Usage before the organization's first billing cycle belongs to no bill (backfill or not).
  const first = cycles[0];
  const floor = first ? new Date(`${first.startDate}T00:00:00Z`) : EARLIEST_OCCURRED_AT;
  const wsIds = [...new Set(valid.map((v) => v.event.workspaceUuid).filter((w): w is string => !!w))];
  const known = await ownWorkspaces(db, organizationUuid, wsIds);

  const rows = new Map<string, EventRow>();
  const isAdjustment = new Set<string>();
  let duplicates = 0;
  for (const { index, event: e } of valid) {
    const reject = (reason: string) => rejected.push({ index, event_id: e.eventId, reason });
    if (e.costMicros !== null && !opts.adjustments) {
      reject(ADJUSTMENT_REFUSED);
      continue;
    }
    if (e.occurredAt < floor) {
      reject(
        first
          ? `occurred_at ${e.occurredAt.toISOString()} is before the organization's first billing cycle, which starts ${first.startDate}`
          : `occurred_at ${e.occurredAt.toISOString()} is before ${EARLIEST_OCCURRED_AT.toISOString().slice(0, 10)}, the earliest date usage can have`,
      );
      continue;
    }
    if (e.workspaceUuid && !known.has(e.workspaceUuid)) {
      reject(`workspace_uuid ${e.workspaceUuid} is not a workspace of this organization`);
      continue;
    }
    const closed = cycles.length && !opts.backfill ? closedCycleAt(cycles, e.occurredAt) : undefined;
    if (closed) {
      reject(
        `occurred_at ${e.occurredAt.toISOString()} falls in the closed billing cycle ${closed.startDate} to ${closed.endDate}; closed cycles take new usage only through an operator backfill`,
      );
      continue;
    }
    const priceable = { ...e, organizationUuid };
    const rule = matchPriceRule(rules, priceable);
    if (!rule && e.costMicros === null) {
      reject(noRuleReason(priceable));
      continue;
    }
    if (rows.has(e.eventId)) {
      duplicates += 1; // repeated within the batch: the first occurrence counts
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
    rows.set(e.eventId, {
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
      unitPriceMicros,
      costMicros,
      priceRuleUuid: rule?.priceRuleUuid ?? null,
      notes: e.notes,
    });
    if (e.costMicros !== null) isAdjustment.add(e.eventId);
  }
  rejected.sort((a, b) => a.index - b.index);

  // Sorted by event_id so concurrent batches wait on each other instead of deadlocking.
  const pending = [...rows.values()].sort((a, b) =>
    a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0,
  );
  let accepted = 0;
  if (pending.length) {
    accepted = await db.transaction(async (tx: Tx) => {
      const inserted: EventRow[] = [];
      for (const eventId of await insertEvents(tx, organizationUuid, pending)) {
        const row = rows.get(eventId);
        if (row) inserted.push(row);
      }
      // Both rollups and the usage version (the usage caches key on it), in this transaction.
      await addToRollups(tx, organizationUuid, rollUp(organizationUuid, inserted));
      const by = typeof opts.adjustments === "object" ? opts.adjustments.by : null;
      if (by)
        for (const row of inserted)
          if (isAdjustment.has(row.eventId))
            await writeAudit(tx, {
              organizationUuid,
              actor: by,
              action: "usage.adjustment",
              targetType: "usage_event",
              targetId: row.eventId,
              details: {
                cost: formatUsdExact(row.costMicros),
                notes: row.notes,
                occurred_at: row.occurredAt.toISOString(),
              },
            });
      return inserted.length;
    });
  }
  duplicates += pending.length - accepted;
  return { accepted, duplicates, rejected };
}
