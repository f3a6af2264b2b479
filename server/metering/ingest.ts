import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { usageDaily, usageEvents, workspaces } from "../db/schema";
import type { Db } from "../platform/database";
import { utcDay, type ValidEvent, validateEvent } from "./events";
import { loadPriceRules } from "./prices";
import { matchPriceRule, noRuleReason } from "./pricing";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export type Rejection = { index: number; event_id: string | null; reason: string };
export type IngestResult = { accepted: number; duplicates: number; rejected: Rejection[] };

type EventRow = typeof usageEvents.$inferInsert;
type DailyRow = typeof usageDaily.$inferInsert;

// Rows per INSERT: well under PostgreSQL's 65,535 bind parameters (21 columns per event).
const CHUNK = 1000;

function chunks<T>(list: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

const dailyKey = (r: EventRow) =>
  JSON.stringify([
    utcDay(r.occurredAt),
    r.workspaceUuid ?? null,
    r.operation,
    r.evalType,
    r.modality,
    r.isJailbreak,
    r.hasGroundTruth,
    r.ruleMetric,
  ]);

/** Folds events into one usage_daily row per day and dimensions. */
export function rollUp(organizationUuid: string, rows: EventRow[]): DailyRow[] {
  const byKey = new Map<string, DailyRow>();
  for (const r of rows) {
    const key = dailyKey(r);
    const d = byKey.get(key);
    if (d) {
      d.eventCount += 1;
      d.quantitySum += r.quantity ?? 1;
      d.costMicrosSum += r.costMicros;
    } else
      byKey.set(key, {
        organizationUuid,
        day: utcDay(r.occurredAt),
        workspaceUuid: r.workspaceUuid ?? null,
        operation: r.operation,
        evalType: r.evalType,
        modality: r.modality ?? "",
        isJailbreak: r.isJailbreak ?? false,
        hasGroundTruth: r.hasGroundTruth ?? false,
        ruleMetric: r.ruleMetric ?? "eval",
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
    .where(
      and(
        eq(workspaces.organizationUuid, organizationUuid),
        inArray(workspaces.workspaceUuid, ids),
        isNull(workspaces.deletedAt),
      ),
    );
  return new Set(rows.map((r) => r.id));
}

/**
 * Validates, prices and stores a batch of usage events for one organization. Each event is judged
 * on its own; the valid ones are inserted with ON CONFLICT DO NOTHING on (organization, event_id)
 * and only the rows actually inserted are added to usage_daily, in the same transaction, so a
 * batch sent twice (or by several clients at once) counts every event exactly once.
 */
export async function ingestUsage(
  db: Db,
  organizationUuid: string,
  raw: readonly unknown[],
  now = new Date(),
): Promise<IngestResult> {
  const rejected: Rejection[] = [];
  const valid: { index: number; event: ValidEvent }[] = [];
  raw.forEach((item, index) => {
    const v = validateEvent(item, now);
    if (v.ok) valid.push({ index, event: v.event });
    else rejected.push({ index, event_id: v.eventId, reason: v.reason });
  });

  const rules = valid.length ? await loadPriceRules(db, organizationUuid) : [];
  const wsIds = [...new Set(valid.map((v) => v.event.workspaceUuid).filter((w): w is string => !!w))];
  const known = await ownWorkspaces(db, organizationUuid, wsIds);

  const rows = new Map<string, EventRow>();
  let duplicates = 0;
  for (const { index, event: e } of valid) {
    const reject = (reason: string) => rejected.push({ index, event_id: e.eventId, reason });
    if (e.workspaceUuid && !known.has(e.workspaceUuid)) {
      reject(`workspace_uuid ${e.workspaceUuid} is not a workspace of this organization`);
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
      costMicros: e.costMicros ?? unitPriceMicros * BigInt(e.quantity),
      priceRuleUuid: rule?.priceRuleUuid ?? null,
      notes: e.notes,
    });
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
      for (const part of chunks(pending)) {
        const ids = await tx
          .insert(usageEvents)
          .values(part)
          .onConflictDoNothing({ target: [usageEvents.organizationUuid, usageEvents.eventId] })
          .returning({ eventId: usageEvents.eventId });
        for (const { eventId } of ids) {
          const row = rows.get(eventId);
          if (row) inserted.push(row);
        }
      }
      for (const part of chunks(rollUp(organizationUuid, inserted))) {
        await tx
          .insert(usageDaily)
          .values(part)
          .onConflictDoUpdate({
            target: [
              usageDaily.organizationUuid,
              usageDaily.day,
              usageDaily.workspaceUuid,
              usageDaily.operation,
              usageDaily.evalType,
              usageDaily.modality,
              usageDaily.isJailbreak,
              usageDaily.hasGroundTruth,
              usageDaily.ruleMetric,
            ],
            set: {
              eventCount: sql`${usageDaily.eventCount} + excluded.event_count`,
              quantitySum: sql`${usageDaily.quantitySum} + excluded.quantity_sum`,
              costMicrosSum: sql`${usageDaily.costMicrosSum} + excluded.cost_micros_sum`,
            },
          });
      }
      return inserted.length;
    });
  }
  duplicates += pending.length - accepted;
  return { accepted, duplicates, rejected };
}
