/**
 * Price corrections for closed billing cycles (docs/pricing.md). A closed cycle never changes: when
 * a new price applies to usage of a closed cycle (its valid_from falls before the cycle's end), the
 * events there keep their stored cost, and what the change makes them cost more or less is billed
 * in the open cycle as price correction lines — one per closed cycle and workspace and dimensions —
 * whose note names the closed cycle and the rule version, marked with the cycle's period
 * (late_period_start/end). Each event's difference is its price under the rules after the change
 * minus its price under the rules just before it: every earlier change was corrected the same way,
 * so the corrections add up to what the latest price list makes the cycle cost. A line's event id is
 * derived from the rule, the cycle and the dimensions, so running the correction again (after a
 * crash) bills nothing twice.
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db, Tx } from "../../platform/database";
import { type Cycle, listCycles } from "../billing/cycles";
import { evaluateIngestedBudgets } from "../budgets/eval";
import { noticeBudgetAlerts } from "../budgets/notify";
import { type EventRow, insertEvents } from "../ingestion/event-store";
import { rollUp } from "../ingestion/ingest";
import { billingTime, correctionNote, lateMarker } from "../ingestion/late-usage";
import { ensureMonths, monthOf } from "../shared/partitions";
import { addToRollups } from "../shared/rollups";
import { addToRunRollup } from "../shared/run-rollup";
import { loadPriceRules } from "./prices";
import { fitsRule, RATED_COLUMNS, RERATE_BATCH, RULE_PRICED, ratedEvent } from "./rerate";
import { type CorrectionGroup, correctionGroups, mergeGroups } from "./rerate-logic";
import { createRuleMatcher, type PriceRule } from "./rule-matching";

export type Correction = {
  organizationUuid: string;
  billingCycleUuid: string;
  periodStart: string;
  periodEnd: string;
  /** The closed cycle's events whose price the change moves. */
  events: number;
  /** The sum of the correction lines billed in the open cycle (negative: a credit). */
  amountMicros: bigint;
  lines: number;
};

type Rows<T> = { rows: T[] };

/** The closed cycle's rule-priced events the rule fits, from valid_from on, grouped by difference. */
async function cycleGroups(
  db: Db,
  organizationUuid: string,
  cycle: Cycle & { endDate: string },
  rule: PriceRule,
  before: ReturnType<typeof createRuleMatcher>,
  after: ReturnType<typeof createRuleMatcher>,
): Promise<CorrectionGroup[]> {
  const start = new Date(`${cycle.startDate}T00:00:00Z`);
  const from = start > rule.validFrom ? start : rule.validFrom;
  const end = new Date(`${cycle.endDate}T00:00:00Z`);
  let groups: CorrectionGroup[] = [];
  let last: { at: string; id: string } | null = null;
  for (;;) {
    const keyset: ReturnType<typeof sql> = last
      ? sql`and occurred_at >= ${last.at}::timestamptz
            and (occurred_at > ${last.at}::timestamptz or usage_event_uuid > ${last.id}::uuid)`
      : sql`and occurred_at >= ${from.toISOString()}::timestamptz`;
    const page = (await db.execute(sql`
      select ${RATED_COLUMNS} from usage_events
       where organization_uuid = ${organizationUuid} and ${RULE_PRICED} and (${fitsRule(rule)})
         and occurred_at < ${end.toISOString()}::timestamptz ${keyset}
       order by occurred_at, usage_event_uuid
       limit ${RERATE_BATCH}`)) as unknown as Rows<Parameters<typeof ratedEvent>[0]>;
    const events = page.rows.map(ratedEvent);
    groups = mergeGroups(groups, correctionGroups(organizationUuid, events, before, after));
    const tail = events.at(-1);
    if (!tail || events.length < RERATE_BATCH) break;
    last = { at: tail.occurredKey, id: tail.usageEventUuid };
  }
  return groups.filter((g) => g.deltaMicros !== 0n);
}

/** A correction line's event id: the same rule, cycle and dimensions always give the same one. */
const lineId = (rule: PriceRule, cycle: Cycle, g: CorrectionGroup) =>
  `price-correction:${rule.priceRuleUuid}:${cycle.billingCycleUuid}:${createHash("sha256")
    .update([g.workspaceUuid ?? "", g.operation, g.evalType, g.modality, g.ruleMetric].join("\u0000"))
    .digest("hex")
    .slice(0, 16)}`;

/**
 * Bills, in the open cycle, what `rule` (just set) changes in the organization's closed cycles.
 * `beforeRules`: the price list as it was just before the rule was set.
 */
export async function correctClosedCycles(
  db: Db,
  organizationUuid: string,
  rule: PriceRule,
  beforeRules: readonly PriceRule[],
  opts: { now?: Date } = {},
): Promise<Correction[]> {
  const now = opts.now ?? new Date();
  const cycles = await listCycles(db, organizationUuid);
  const closed = cycles.filter(
    (c): c is Cycle & { endDate: string } =>
      c.endDate !== null && new Date(`${c.endDate}T00:00:00Z`) > rule.validFrom,
  );
  if (!closed.length) return [];
  const before = createRuleMatcher(beforeRules);
  const after = createRuleMatcher(await loadPriceRules(db, organizationUuid));
  const billAt = billingTime(cycles, now);
  const out: Correction[] = [];
  let alertsChanged = false;
  for (const cycle of closed) {
    const groups = await cycleGroups(db, organizationUuid, cycle, rule, before, after);
    if (!groups.length) continue;
    await ensureMonths(db, [monthOf(billAt)]);
    const rows: EventRow[] = groups.map((g) => ({
      organizationUuid,
      eventId: lineId(rule, cycle, g),
      occurredAt: billAt,
      workspaceUuid: g.workspaceUuid,
      name: null,
      operation: g.operation,
      evalType: g.evalType,
      modality: g.modality,
      ruleMetric: g.ruleMetric,
      // A line, not usage: no quantity, so the usage totals count only what was used; stored as
      // an adjustment, so that no later price change re-rates it.
      quantity: 0,
      unitPriceMicros: 0n,
      costMicros: g.deltaMicros,
      priceRuleUuid: rule.priceRuleUuid,
      notes: correctionNote(cycle, rule, g.events),
      adjustment: true,
      ...lateMarker(cycle, null),
    }));
    const stored = await db.transaction(async (tx: Tx) => {
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtext(${`awaiting_pricing:${organizationUuid}`}))`,
      );
      const ids = new Set(await insertEvents(tx, organizationUuid, rows));
      const inserted = rows.filter((r) => ids.has(r.eventId));
      await addToRollups(tx, organizationUuid, rollUp(organizationUuid, inserted));
      // A correction line names no run (nothing to add); kept beside addToRollups like every writer.
      await addToRunRollup(tx, organizationUuid, inserted);
      if (inserted.length)
        alertsChanged ||=
          (await evaluateIngestedBudgets(tx, organizationUuid, cycles, inserted, now)).length > 0;
      return inserted;
    });
    out.push({
      organizationUuid,
      billingCycleUuid: cycle.billingCycleUuid,
      periodStart: cycle.startDate,
      periodEnd: cycle.endDate,
      events: groups.reduce((n, g) => n + g.events, 0),
      amountMicros: stored.reduce((s, r) => s + r.costMicros, 0n),
      lines: stored.length,
    });
  }
  if (alertsChanged) noticeBudgetAlerts(db, organizationUuid);
  return out;
}
