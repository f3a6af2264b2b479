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
import { fitsRule, RERATE_BATCH } from "./rerate";
import type { CorrectionGroup } from "./rerate-logic";
import { afterKey, correctionPage, type PageKey } from "./rerate-sql";
import type { PriceRule } from "./rule-matching";

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

export type CorrectOptions = {
  now?: Date;
  /** Events read per page (default RERATE_BATCH). */
  batch?: number;
  /** The price list just after the change (default: the list as it is now). */
  afterRules?: readonly PriceRule[];
  /** Where an interrupted run stopped: the closed cycles before this index are done. */
  fromCycle?: number;
  /** Called in the transaction that stores a cycle's lines (null: the cycle needed none). */
  onCycle?: (tx: Tx, index: number, correction: Correction | null) => Promise<void>;
  /** Called after each page read, with the events it read. */
  onPage?: (scanned: number) => Promise<void>;
};

/** The closed cycle's rule-priced events the rule fits, from valid_from on, grouped by difference. */
async function cycleGroups(
  db: Db,
  organizationUuid: string,
  cycle: Cycle & { endDate: string },
  rule: PriceRule,
  before: readonly PriceRule[],
  after: readonly PriceRule[],
  onPage?: (scanned: number) => Promise<void>,
  batch = RERATE_BATCH,
): Promise<CorrectionGroup[]> {
  const start = new Date(`${cycle.startDate}T00:00:00Z`);
  const from = start > rule.validFrom ? start : rule.validFrom;
  const end = new Date(`${cycle.endDate}T00:00:00Z`);
  const where = sql`${fitsRule(rule)} and occurred_at < ${end.toISOString()}::timestamptz`;
  let groups: CorrectionGroup[] = [];
  let last: PageKey | null = null;
  for (;;) {
    // Read only: its own short transaction, so that PGlite's queue and PostgreSQL's snapshot are
    // held one page at a time.
    const key = afterKey(last, from);
    const page = await db.transaction((tx: Tx) =>
      correctionPage(tx, organizationUuid, before, after, where, key, batch, groups),
    );
    groups = page.groups;
    await onPage?.(page.scanned);
    if (!page.last || page.scanned < batch) break;
    last = page.last;
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
  opts: CorrectOptions = {},
): Promise<Correction[]> {
  const now = opts.now ?? new Date();
  const cycles = await listCycles(db, organizationUuid);
  const closed = cycles.filter(
    (c): c is Cycle & { endDate: string } =>
      c.endDate !== null && new Date(`${c.endDate}T00:00:00Z`) > rule.validFrom,
  );
  if (!closed.length) return [];
  const after = opts.afterRules ?? (await loadPriceRules(db, organizationUuid));
  const billAt = billingTime(cycles, now);
  const out: Correction[] = [];
  let alertsChanged = false;
  for (const [index, cycle] of closed.entries()) {
    if (index < (opts.fromCycle ?? 0)) continue;
    const groups = await cycleGroups(
      db,
      organizationUuid,
      cycle,
      rule,
      beforeRules,
      after,
      opts.onPage,
      opts.batch,
    );
    if (!groups.length) {
      if (opts.onCycle)
        await db.transaction((tx: Tx) => opts.onCycle?.(tx, index, null) ?? Promise.resolve());
      continue;
    }
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
      const correction: Correction = {
        organizationUuid,
        billingCycleUuid: cycle.billingCycleUuid,
        periodStart: cycle.startDate,
        periodEnd: cycle.endDate,
        events: groups.reduce((n, g) => n + g.events, 0),
        amountMicros: inserted.reduce((s, r) => s + r.costMicros, 0n),
        lines: inserted.length,
      };
      // With the lines, in their transaction: a job resumed after a crash starts at the next cycle.
      await opts.onCycle?.(tx, index, correction);
      return correction;
    });
    out.push(stored);
  }
  if (alertsChanged) noticeBudgetAlerts(db, organizationUuid);
  return out;
}
