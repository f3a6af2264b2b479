/**
 * Re-rating, the pure part: which stored events a changed price list prices differently, by how
 * much, and how those differences add up in the rollups and in a closed cycle's correction lines.
 * All money in integer micro-dollars (bigint); no sum passes through floating point.
 */
import type { EventRow } from "../ingestion/event-store";
import { rollUp } from "../ingestion/ingest";
import type { DailyRow } from "../shared/rollups";
import type { Priceable, PriceRule, RuleMetric } from "./rule-matching";

/** A stored, rule-priced event as re-rating reads it. */
export type RatedEvent = {
  usageEventUuid: string;
  /** When it is billed (the row's occurred_at). */
  occurredAt: Date;
  /**
   * occurred_at exactly as the database holds it (microseconds; a Date keeps milliseconds): the
   * key the update and the next page's keyset use, so no row is missed or read twice.
   */
  occurredKey: string;
  /** When it happened, for a late event (priced at that time); else null. */
  lateOccurredAt: Date | null;
  workspaceUuid: string | null;
  /** The eval run it names (the per-run rollup moves with its cost); absent where not read. */
  evalRunUuid?: string | null;
  operation: string;
  evalType: string;
  modality: string;
  isJailbreak: boolean;
  hasGroundTruth: boolean;
  ruleMetric: string;
  quantity: number;
  unitPriceMicros: bigint;
  costMicros: bigint;
  priceRuleUuid: string | null;
};

/** A changed price: the event, its new rule, and its cost before and after. */
export type Reprice = { event: RatedEvent; rule: PriceRule; beforeMicros: bigint; afterMicros: bigint };

/** The event as the rule matcher sees it: priced at the time it happened. */
export const priceableOf = (organizationUuid: string, e: RatedEvent): Priceable => ({
  organizationUuid,
  operation: e.operation,
  evalType: e.evalType,
  modality: e.modality,
  ruleMetric: e.ruleMetric as RuleMetric,
  occurredAt: e.lateOccurredAt ?? e.occurredAt,
});

/**
 * The events whose best rule now differs from the one that priced them (or whose rule's price
 * does), with their exact new cost. An event no rule covers any more, or whose new cost would pass
 * the per-event limit, keeps its price (never dropped, never billed as $0).
 */
export function repriced(
  organizationUuid: string,
  events: readonly RatedEvent[],
  price: (e: Priceable) => PriceRule | null,
  maxCostMicros: bigint,
): Reprice[] {
  const out: Reprice[] = [];
  for (const event of events) {
    const rule = price(priceableOf(organizationUuid, event));
    if (!rule) continue;
    if (rule.priceRuleUuid === event.priceRuleUuid && rule.unitPriceMicros === event.unitPriceMicros)
      continue;
    const afterMicros = rule.unitPriceMicros * BigInt(event.quantity);
    if (afterMicros > maxCostMicros) continue;
    out.push({ event, rule, beforeMicros: event.costMicros, afterMicros });
  }
  return out;
}

/**
 * The rollup rows that move usage_daily and the others by exactly the cost differences: the
 * events are already counted there, so the count and quantity change by zero.
 */
export function rollupDeltas(organizationUuid: string, changes: readonly Reprice[]): DailyRow[] {
  const rows: EventRow[] = changes.map((c) => ({
    ...c.event,
    organizationUuid,
    eventId: c.event.usageEventUuid,
    costMicros: c.afterMicros - c.beforeMicros,
  }));
  return rollUp(organizationUuid, rows)
    .map((d) => ({ ...d, eventCount: 0, quantitySum: 0 }))
    .filter((d) => d.costMicrosSum !== 0n);
}

/** One closed cycle's price difference for one set of dimensions: a correction line's content. */
export type CorrectionGroup = {
  workspaceUuid: string | null;
  operation: string;
  evalType: string;
  modality: string;
  ruleMetric: string;
  events: number;
  deltaMicros: bigint;
};

/**
 * What a price list change makes the closed cycle's events cost more (or less), per workspace and
 * dimensions: each event priced by the rules before and after the change, its difference summed.
 * Groups that add up to zero are left out (no line for no change).
 */
export function correctionGroups(
  organizationUuid: string,
  events: readonly RatedEvent[],
  before: (e: Priceable) => PriceRule | null,
  after: (e: Priceable) => PriceRule | null,
): CorrectionGroup[] {
  const groups = new Map<string, CorrectionGroup>();
  for (const e of events) {
    const p = priceableOf(organizationUuid, e);
    const was = before(p);
    const now = after(p);
    // No rule before: the event was not rule-priced as we know it; no rule after: keep its price.
    if (!was || !now) continue;
    const delta = (now.unitPriceMicros - was.unitPriceMicros) * BigInt(e.quantity);
    if (delta === 0n) continue;
    const key = [e.workspaceUuid ?? "", e.operation, e.evalType, e.modality, e.ruleMetric].join("\u0000");
    const g = groups.get(key);
    if (g) {
      g.events += 1;
      g.deltaMicros += delta;
    } else
      groups.set(key, {
        workspaceUuid: e.workspaceUuid,
        operation: e.operation,
        evalType: e.evalType,
        modality: e.modality,
        ruleMetric: e.ruleMetric,
        events: 1,
        deltaMicros: delta,
      });
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, g]) => g)
    .filter((g) => g.deltaMicros !== 0n);
}

/** Merges one page's groups into the running ones (same dimensions add up). */
export function mergeGroups(into: CorrectionGroup[], page: readonly CorrectionGroup[]): CorrectionGroup[] {
  const key = (g: CorrectionGroup) =>
    [g.workspaceUuid ?? "", g.operation, g.evalType, g.modality, g.ruleMetric].join("\u0000");
  const byKey = new Map(into.map((g) => [key(g), { ...g }]));
  for (const g of page) {
    const k = key(g);
    const have = byKey.get(k);
    if (have) {
      have.events += g.events;
      have.deltaMicros += g.deltaMicros;
    } else byKey.set(k, { ...g });
  }
  // Zero sums are kept until the last page: a later page may move them.
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
}
