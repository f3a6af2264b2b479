/**
 * Re-rating the open billing cycle after a price change (docs/pricing.md). Every rule-priced event
 * of the open cycle (from the new rule's valid_from on, with dimensions the rule fits) is priced
 * again by the current price list; an event whose rule or price changes gets its exact new cost,
 * unit price and rule (the rule's uuid names its version), and the rollups move by exactly the
 * difference, in the same transaction. Work goes in pages of BATCH events, each one transaction
 * under the organization's pricing lock (the one awaiting-pricing.ts takes), keyset by
 * (occurred_at, usage_event_uuid): ingestion and the dashboard keep running between pages, and a
 * crash between pages leaves every committed page consistent (events and rollups together); running
 * it again finishes the work, as an event already at its price is left alone. Price adjustments
 * (an explicit cost) are never re-rated: only rows whose cost is unit price × quantity are read.
 * Closed cycles are left alone (closed-corrections.ts bills their difference in the open cycle).
 */
import { type SQL, sql } from "drizzle-orm";
import type { Db, Tx } from "../../platform/database";
import { type Cycle, listCycles } from "../billing/cycles";
import { evaluateIngestedBudgets } from "../budgets/eval";
import { noticeBudgetAlerts } from "../budgets/notify";
import { MAX_EVENT_COST_MICROS } from "../ingestion/limits";
import { addToRollups } from "../shared/rollups";
import { moveRunCosts } from "../shared/run-rollup";
import { arrayLiteral } from "../shared/sql-arrays";
import { loadPriceRules } from "./prices";
import type { RatedEvent } from "./rerate-logic";
import { afterKey, type PageKey, type RepricedPage, repricePage, StalePageError } from "./rerate-sql";
import type { PriceRule } from "./rule-matching";

/** Events read and re-priced per transaction. */
export const RERATE_BATCH = 20_000;

export type RerateTotals = { events: number; beforeMicros: bigint; afterMicros: bigint };

type Row = {
  usage_event_uuid: string;
  occurred_at: string | Date;
  occurred_key: string;
  late_occurred_at: string | Date | null;
  workspace_uuid: string | null;
  eval_run_uuid: string | null;
  operation: string;
  eval_type: string;
  modality: string;
  is_jailbreak: boolean;
  has_ground_truth: boolean;
  rule_metric: string;
  quantity: string | number;
  unit_price_micros: string | bigint;
  cost_micros: string | bigint;
  price_rule_uuid: string | null;
};

export const ratedEvent = (r: Row): RatedEvent => ({
  usageEventUuid: r.usage_event_uuid,
  occurredAt: new Date(r.occurred_at),
  occurredKey: r.occurred_key,
  lateOccurredAt: r.late_occurred_at === null ? null : new Date(r.late_occurred_at),
  workspaceUuid: r.workspace_uuid,
  evalRunUuid: r.eval_run_uuid,
  operation: r.operation,
  evalType: r.eval_type,
  modality: r.modality,
  isJailbreak: r.is_jailbreak === true || String(r.is_jailbreak) === "t",
  hasGroundTruth: r.has_ground_truth === true || String(r.has_ground_truth) === "t",
  ruleMetric: r.rule_metric,
  quantity: Number(r.quantity),
  unitPriceMicros: BigInt(r.unit_price_micros),
  costMicros: BigInt(r.cost_micros),
  priceRuleUuid: r.price_rule_uuid,
});

/** The columns re-rating reads, and the rule-priced rows only (price adjustments never move). */
export const RATED_COLUMNS = sql.raw(`usage_event_uuid, occurred_at, occurred_at::text as occurred_key,
  late_occurred_at, workspace_uuid, eval_run_uuid,
  operation, eval_type, modality, is_jailbreak, has_ground_truth, rule_metric, quantity,
  unit_price_micros, cost_micros, price_rule_uuid`);
export const RULE_PRICED = sql.raw("price_rule_uuid is not null and not adjustment");

/** The events a rule's dimensions fit (a dimension the rule leaves open fits anything). */
export function fitsRule(rule: PriceRule): SQL {
  const parts: SQL[] = [];
  if (rule.operation !== null) parts.push(sql`operation = ${rule.operation}`);
  if (rule.evalType !== null) parts.push(sql`eval_type = ${rule.evalType}`);
  if (rule.modality !== null) parts.push(sql`modality = ${rule.modality.toLowerCase()}`);
  if (rule.ruleMetric !== null) parts.push(sql`rule_metric = ${rule.ruleMetric}`);
  return parts.length ? sql.join(parts, sql` and `) : sql`true`;
}

const lockOrg = (tx: Tx, organizationUuid: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`awaiting_pricing:${organizationUuid}`}))`);

/** Where the open cycle's events start: its start day, else the last closed cycle's end. */
export function openFrom(cycles: readonly Cycle[]): Date | null {
  const open = cycles.find((c) => c.endDate === null);
  if (open) return new Date(`${open.startDate}T00:00:00Z`);
  let end: string | null = null;
  for (const c of cycles) if (c.endDate && (!end || c.endDate > end)) end = c.endDate;
  return end ? new Date(`${end}T00:00:00Z`) : null;
}

export type RerateOptions = {
  now?: Date;
  batch?: number;
  cycles?: Cycle[];
  /** Where an interrupted run stopped: the first page starts after this event. */
  after?: PageKey | null;
  /** Called in each page's transaction once its changes are stored (a job records its key there). */
  onPage?: (tx: Tx, page: RepricedPage) => Promise<void>;
};

/**
 * Re-rates the organization's rule-priced events that `where` selects, page by page (see above),
 * each page one set-based statement (rerate-sql.ts). `from`: the first billing time to read.
 * Returns how many changed and their totals before and after. Budgets are evaluated as for
 * ingested usage.
 */
export async function reratePages(
  db: Db,
  organizationUuid: string,
  where: SQL,
  from: Date | null,
  opts: RerateOptions = {},
): Promise<RerateTotals> {
  const now = opts.now ?? new Date();
  const batch = opts.batch ?? RERATE_BATCH;
  const cycles = opts.cycles ?? (await listCycles(db, organizationUuid));
  const totals: RerateTotals = { events: 0, beforeMicros: 0n, afterMicros: 0n };
  let after: PageKey | null = opts.after ?? null;
  let alertsChanged = false;
  for (let stale = 0; ; ) {
    const page = await db
      .transaction(async (tx: Tx) => {
        await lockOrg(tx, organizationUuid);
        // Read under the lock, in this transaction: the prices set by now, the rows as they are.
        const rules = await loadPriceRules(tx, organizationUuid);
        const moved = await repricePage(
          tx,
          organizationUuid,
          rules,
          where,
          afterKey(after, from),
          batch,
          MAX_EVENT_COST_MICROS,
        );
        if (moved.events) {
          await addToRollups(tx, organizationUuid, moved.daily);
          await moveRunCosts(
            tx,
            organizationUuid,
            moved.runs.map((r) => ({
              run: r.run,
              occurredAt: new Date(`${r.day}T00:00:00Z`),
              deltaMicros: r.delta,
            })),
          );
          // The days and workspaces that moved: all budgets need to know (cycles are whole days).
          const touched = moved.daily.map((d) => ({
            occurredAt: new Date(`${d.day}T00:00:00Z`),
            workspaceUuid: d.workspaceUuid ?? null,
          }));
          alertsChanged ||=
            (await evaluateIngestedBudgets(tx, organizationUuid, cycles, touched, now)).length > 0;
        }
        await opts.onPage?.(tx, moved);
        return moved;
      })
      .catch((err: unknown) => {
        // Rolled back whole: the same page again, a few times, then the job fails with the error.
        if (err instanceof StalePageError && ++stale < 3) return null;
        throw err;
      });
    if (!page) continue;
    stale = 0;
    totals.events += page.events;
    totals.beforeMicros += page.beforeMicros;
    totals.afterMicros += page.afterMicros;
    if (!page.last || page.scanned < batch) break;
    after = page.last;
  }
  if (alertsChanged) noticeBudgetAlerts(db, organizationUuid);
  return totals;
}

/** Re-rates the open cycle's events a new rule may price (from its valid_from, dimensions it fits). */
export async function rerateOpenCycle(
  db: Db,
  organizationUuid: string,
  rule: PriceRule,
  opts: Omit<RerateOptions, "cycles"> = {},
): Promise<RerateTotals> {
  const cycles = await listCycles(db, organizationUuid);
  const start = openFrom(cycles);
  // Billed from valid_from on: a late event happened before it was billed, so one priced at
  // valid_from or later is billed then too; the matcher leaves the others at their price.
  const from = start && start > rule.validFrom ? start : rule.validFrom;
  return reratePages(db, organizationUuid, fitsRule(rule), from, { ...opts, cycles });
}

/**
 * Re-rates some events by event id (an ingestion whose batch was priced with a price list that
 * changed before it committed: the change's re-rating may have passed them).
 */
export async function rerateEvents(
  db: Db,
  organizationUuid: string,
  eventIds: readonly string[],
  opts: { now?: Date } = {},
): Promise<RerateTotals> {
  return reratePages(
    db,
    organizationUuid,
    sql`event_id = any(${arrayLiteral([...eventIds])}::text[])`,
    null,
    {
      ...opts,
      batch: Math.max(1, eventIds.length),
    },
  );
}
