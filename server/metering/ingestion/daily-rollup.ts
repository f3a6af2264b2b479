// The fold of stored events into usage_daily rows: ingestion adds them as a batch is stored, and
// pricing (re-rating, awaiting pricing, corrections) moves them when events change price.
import type { usageDaily } from "../../db/schema";
import type { EventRow } from "./event-store";
import { utcDay } from "./events";

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
