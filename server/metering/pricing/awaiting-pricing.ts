/**
 * Usage awaiting pricing: events accepted while no price rule matched them (ingest.ts keeps them in
 * usage_events_awaiting, their idempotency key already taken). They are priced exactly once, as
 * soon as a rule covers them: setting a price rule runs priceAwaitingEvents for its organization
 * (or for every organization, for a global rule), and so does an ingestion that held events while
 * a rule was being set. Each move is one transaction under a per-organization lock: the events are
 * deleted from usage_events_awaiting (`delete … returning`, so two pricers racing for the same
 * events cannot both get them) and inserted into usage_events, the rollups and the budget
 * evaluation as ingestion does. Until then they are in no rollup and no bill; the API counts them.
 *
 * An event whose day lies in a billing cycle closed since it was accepted is late usage, as at
 * ingestion: billed in the open cycle, priced at the time it happened and marked with its period
 * (late-usage.ts), unless an operator sent it, or sends it again, with backfill (then it is billed
 * in its closed cycle). An event a rule covers is still held (and says why, in held_reason) when
 * its day is before the first cycle (opened after it was accepted), when its month's events are
 * archived, or when its priced cost exceeds the per-event limit. It is tried again at the next
 * price change.
 */
import { sql } from "drizzle-orm";
import { formatUsdExact } from "../../../contract/money";
import type { usageEvents } from "../../db/schema";
import type { Db, Tx } from "../../platform/database";
import { type Cycle, listCycles } from "../billing/cycles";
import { evaluateIngestedBudgets } from "../budgets/eval";
import { noticeBudgetAlerts } from "../budgets/notify";
import { loadBudgets } from "../budgets/store";
import { utcDay } from "../ingestion/events";
import { rollUp } from "../ingestion/ingest";
import { billingTime, closedCycleAt } from "../ingestion/late-usage";
import { MAX_EVENT_COST_MICROS, MAX_EVENT_COST_USD } from "../ingestion/limits";
import { ensureMonths, forgetMonths, isMissingPartition, monthOf } from "../shared/partitions";
import { addToRollups } from "../shared/rollups";
import { addToRunRollup } from "../shared/run-rollup";
import { arrayLiteral } from "../shared/sql-arrays";
import { loadPriceRules } from "./prices";
import { createRuleMatcher, type RuleMetric } from "./rule-matching";

type EventRow = typeof usageEvents.$inferInsert;

/** Events moved per transaction. */
const BATCH = 5_000;

type AwaitingRow = {
  event_id: string;
  occurred_at: string | Date;
  workspace_uuid: string | null;
  eval_run_uuid: string | null;
  name: string | null;
  eval_uuid: string | null;
  operation: string;
  eval_type: string;
  modality: string;
  is_jailbreak: boolean;
  has_ground_truth: boolean;
  quantity: string | number;
  rule_metric: string;
  backfill: boolean;
  held_reason: string | null;
};

type Rows<T> = { rows: T[] };

/** late: of the priced events, those billed late in the open cycle (their cycle closed). */
export type PricingRun = { priced: number; late: number; held: number; remaining: number };

const lockOrg = (tx: Tx, organizationUuid: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`awaiting_pricing:${organizationUuid}`}))`);

/**
 * Prices the awaiting events of one organization (or, with null, of every organization that has
 * some) that a rule now covers, oldest first. Returns how many were priced, how many a rule covers
 * but stay held, and how many still await pricing.
 */
export async function priceAwaitingEvents(
  db: Db,
  organizationUuid: string | null,
  opts: { now?: Date } = {},
): Promise<PricingRun> {
  if (organizationUuid === null) {
    const orgs = (await db.execute(
      sql`select distinct organization_uuid from usage_events_awaiting order by 1`,
    )) as unknown as Rows<{ organization_uuid: string }>;
    const total: PricingRun = { priced: 0, late: 0, held: 0, remaining: 0 };
    for (const o of orgs.rows) {
      const r = await priceOrganization(db, o.organization_uuid, opts.now ?? new Date());
      total.priced += r.priced;
      total.late += r.late;
      total.held += r.held;
      total.remaining += r.remaining;
    }
    return total;
  }
  return priceOrganization(db, organizationUuid, opts.now ?? new Date());
}

async function priceOrganization(db: Db, organizationUuid: string, now: Date): Promise<PricingRun> {
  const run: PricingRun = { priced: 0, late: 0, held: 0, remaining: 0 };
  const [rules, cycles, budgets] = await Promise.all([
    loadPriceRules(db, organizationUuid),
    listCycles(db, organizationUuid),
    loadBudgets(db, organizationUuid),
  ]);
  const ctx: PricingContext = {
    organizationUuid,
    price: createRuleMatcher(rules),
    cycles,
    billAt: billingTime(cycles, now),
    budgets: budgets.length > 0,
    now,
  };
  let after: { at: string; id: string } | null = null;
  let alertsChanged = false;
  for (;;) {
    const page = await awaitingPage(db, organizationUuid, after);
    const last = page.at(-1);
    if (!last) break;
    after = { at: new Date(last.occurred_at).toISOString(), id: last.event_id };
    const { priced, held } = pricePage(page, ctx);
    const movable = await holdArchived(db, priced, held);
    try {
      const moved = await db.transaction((tx: Tx) => movePriced(tx, movable, held, ctx));
      run.priced += moved.moved;
      run.late += moved.late;
      alertsChanged ||= moved.alertsChanged;
    } catch (err) {
      // A month was archived since this process looked: those events stay awaiting, for next time.
      if (!isMissingPartition(err)) throw err;
      forgetMonths(db);
    }
    run.held += held.size;
    if (page.length < BATCH) break;
  }
  if (alertsChanged) noticeBudgetAlerts(db, organizationUuid);
  run.remaining = (await awaitingSummary(db, organizationUuid)).events;
  return run;
}

/** What pricing an organization's awaiting events reads once, before its pages. */
type PricingContext = {
  organizationUuid: string;
  price: ReturnType<typeof createRuleMatcher>;
  cycles: Cycle[];
  /** Where a late event is billed: in the open cycle. */
  billAt: Date;
  /** Whether the organization has budgets to evaluate. */
  budgets: boolean;
  now: Date;
};

/** An awaiting event a rule now prices; occurredAt: where it is billed (a late event: billAt; late: its closed cycle). */
type PricedRow = { row: AwaitingRow; unit: bigint; ruleUuid: string; occurredAt: Date; late?: Cycle };

/** The next page of the organization's awaiting events, after `after` in (occurred_at, event_id) order. */
async function awaitingPage(
  db: Db,
  organizationUuid: string,
  after: { at: string; id: string } | null,
): Promise<AwaitingRow[]> {
  const page = (await db.execute(sql`
    select event_id, occurred_at, workspace_uuid, eval_run_uuid, name, eval_uuid, operation, eval_type,
           modality, is_jailbreak, has_ground_truth, quantity, rule_metric, backfill, held_reason
      from usage_events_awaiting
     where organization_uuid = ${organizationUuid}
       ${after ? sql`and (occurred_at, event_id) > (${after.at}::timestamptz, ${after.id})` : sql``}
     order by occurred_at, event_id
     limit ${BATCH}`)) as unknown as Rows<AwaitingRow>;
  return page.rows;
}

/** A page priced in memory: which rule, at what cost, or why not yet (held, with its reason). */
function pricePage(
  rows: AwaitingRow[],
  ctx: PricingContext,
): { priced: PricedRow[]; held: Map<string, string> } {
  const { organizationUuid, cycles, billAt } = ctx;
  // Usage before the first billing cycle belongs to no bill (ingestion refuses it too).
  const first = cycles[0];
  const priced: PricedRow[] = [];
  const held = new Map<string, string>();
  for (const row of rows) {
    const occurredAt = new Date(row.occurred_at);
    const rule = ctx.price({
      organizationUuid,
      operation: row.operation,
      evalType: row.eval_type,
      modality: row.modality,
      ruleMetric: row.rule_metric as RuleMetric,
      occurredAt,
    });
    if (!rule) continue;
    const closed = row.backfill ? undefined : closedCycleAt(cycles, utcDay(occurredAt));
    const cost = rule.unitPriceMicros * BigInt(row.quantity);
    if (first && utcDay(occurredAt) < first.startDate)
      held.set(
        row.event_id,
        `a price rule covers it, but occurred_at ${occurredAt.toISOString()} is before the organization's first billing cycle, which starts ${first.startDate}`,
      );
    else if (cost > MAX_EVENT_COST_MICROS)
      held.set(
        row.event_id,
        `a price rule covers it, but its cost ($${formatUsdExact(cost)}) exceeds the limit of $${MAX_EVENT_COST_USD} per event`,
      );
    else if (closed)
      priced.push({
        row,
        unit: rule.unitPriceMicros,
        ruleUuid: rule.priceRuleUuid,
        occurredAt: billAt,
        late: closed,
      });
    else priced.push({ row, unit: rule.unitPriceMicros, ruleUuid: rule.priceRuleUuid, occurredAt });
  }
  return { priced, held };
}

/** The priced events whose month can take them (its partition made if new); those of archived months are held. */
async function holdArchived(db: Db, priced: PricedRow[], held: Map<string, string>): Promise<PricedRow[]> {
  const archived = priced.length
    ? await ensureMonths(db, [...new Set(priced.map((p) => monthOf(p.occurredAt)))])
    : new Set<string>();
  return priced.filter((p) => {
    const month = monthOf(p.occurredAt);
    if (!archived.has(month)) return true;
    held.set(
      p.row.event_id,
      `a price rule covers it, but ${month}'s events are archived; an operator must restore that month`,
    );
    return false;
  });
}

/**
 * Moves the priced events from usage_events_awaiting into usage_events in one transaction, with
 * their rollups and budget alerts, and records why the held ones wait.
 */
async function movePriced(
  tx: Tx,
  movable: PricedRow[],
  held: Map<string, string>,
  ctx: PricingContext,
): Promise<{ moved: number; late: number; alertsChanged: boolean }> {
  const { organizationUuid } = ctx;
  await lockOrg(tx, organizationUuid);
  const ids = new Set<string>();
  if (movable.length) {
    // Deleted and stored in one statement: only the rows this transaction deleted are stored.
    const result = (await tx.execute(sql`
        with p as (
          select * from unnest(${arrayLiteral(movable.map((m) => m.row.event_id))}::text[],
            ${arrayLiteral(movable.map((m) => String(m.unit)))}::bigint[],
            ${arrayLiteral(movable.map((m) => m.ruleUuid))}::uuid[],
            ${arrayLiteral(movable.map((m) => m.occurredAt.toISOString()))}::timestamptz[],
            ${arrayLiteral(movable.map((m) => m.late?.startDate ?? null))}::date[],
            ${arrayLiteral(movable.map((m) => m.late?.endDate ?? null))}::date[])
            as p(event_id, unit_price_micros, price_rule_uuid, billed_at, late_period_start,
                 late_period_end)
        ),
        d as (
          delete from usage_events_awaiting a using p
           where a.organization_uuid = ${organizationUuid} and a.event_id = p.event_id
          returning a.*, p.unit_price_micros, p.price_rule_uuid, p.billed_at, p.late_period_start,
                    p.late_period_end
        ),
        -- A late event's key names the month it is billed in (the partition that holds it).
        k as (
          update usage_event_keys k set occurred_at = d.billed_at from d
           where k.organization_uuid = ${organizationUuid} and k.event_id = d.event_id
             and d.late_period_start is not null
        )
        insert into usage_events (organization_uuid, event_id, occurred_at, workspace_uuid, eval_uuid,
          eval_run_uuid, name, operation, eval_type, modality, is_jailbreak, has_ground_truth,
          created_by, quantity, rule_metric, unit_price_micros, cost_micros, price_rule_uuid, notes,
          late_occurred_at, late_period_start, late_period_end)
        select organization_uuid, event_id, billed_at, workspace_uuid, eval_uuid, eval_run_uuid,
               name, operation, eval_type, modality, is_jailbreak, has_ground_truth, created_by,
               quantity, rule_metric, unit_price_micros, unit_price_micros * quantity,
               price_rule_uuid, notes,
               case when late_period_start is null then null else occurred_at end,
               late_period_start, late_period_end
          from d
         order by event_id
        returning event_id`)) as unknown as Rows<{ event_id: string }>;
    for (const r of result.rows) ids.add(r.event_id);
  }
  const inserted: EventRow[] = movable
    .filter((m) => ids.has(m.row.event_id))
    .map((m) => ({
      organizationUuid,
      eventId: m.row.event_id,
      occurredAt: m.occurredAt,
      workspaceUuid: m.row.workspace_uuid,
      evalRunUuid: m.row.eval_run_uuid,
      name: m.row.name,
      evalUuid: m.row.eval_uuid,
      operation: m.row.operation,
      evalType: m.row.eval_type,
      modality: m.row.modality,
      isJailbreak: m.row.is_jailbreak,
      hasGroundTruth: m.row.has_ground_truth,
      quantity: Number(m.row.quantity),
      ruleMetric: m.row.rule_metric,
      unitPriceMicros: m.unit,
      costMicros: m.unit * BigInt(m.row.quantity),
      priceRuleUuid: m.ruleUuid,
      lateOccurredAt: m.late ? new Date(m.row.occurred_at) : null,
    }));
  await addToRollups(tx, organizationUuid, rollUp(organizationUuid, inserted));
  await addToRunRollup(tx, organizationUuid, inserted);
  const alertsChanged =
    ctx.budgets && inserted.length > 0
      ? (await evaluateIngestedBudgets(tx, organizationUuid, ctx.cycles, inserted, ctx.now)).length > 0
      : false;
  if (held.size)
    await tx.execute(sql`
      update usage_events_awaiting a set held_reason = h.reason
        from unnest(${arrayLiteral([...held.keys()])}::text[], ${arrayLiteral([...held.values()])}::text[])
          as h(event_id, reason)
       where a.organization_uuid = ${organizationUuid} and a.event_id = h.event_id`);
  return { moved: inserted.length, late: inserted.filter((r) => r.lateOccurredAt).length, alertsChanged };
}

export type AwaitingSummary = { events: number; oldestOccurredAt: Date | null };

/** How many events of the organization await pricing, and the oldest one's time. */
export async function awaitingSummary(db: Db, organizationUuid: string): Promise<AwaitingSummary> {
  const result = (await db.execute(sql`
    select count(*)::int as n, min(occurred_at) as oldest from usage_events_awaiting
     where organization_uuid = ${organizationUuid}`)) as unknown as Rows<{
    n: number | string;
    oldest: string | Date | null;
  }>;
  const r = result.rows[0];
  return { events: Number(r?.n ?? 0), oldestOccurredAt: r?.oldest ? new Date(r.oldest) : null };
}

/** The operator's view of an organization's awaiting events, as the API answers it (and the CLI prints it). */
export type AwaitingReport = {
  organization_uuid: string;
  events: number;
  oldest_occurred_at: string | null;
  dimensions: {
    operation: string;
    eval_type: string;
    modality: string;
    rule_metric: string;
    events: number;
    quantity: number;
    oldest_occurred_at: string;
    newest_occurred_at: string;
    held: number;
    held_reasons: string[];
  }[];
};

export async function awaitingReport(db: Db, organizationUuid: string): Promise<AwaitingReport> {
  const [total, groups] = await Promise.all([
    awaitingSummary(db, organizationUuid),
    awaitingByDimension(db, organizationUuid),
  ]);
  return {
    organization_uuid: organizationUuid,
    events: total.events,
    oldest_occurred_at: total.oldestOccurredAt?.toISOString() ?? null,
    dimensions: groups.map((g) => ({
      operation: g.operation,
      eval_type: g.evalType,
      modality: g.modality,
      rule_metric: g.ruleMetric,
      events: g.events,
      quantity: g.quantity,
      oldest_occurred_at: g.oldestOccurredAt.toISOString(),
      newest_occurred_at: g.newestOccurredAt.toISOString(),
      held: g.held,
      held_reasons: g.heldReasons,
    })),
  };
}

/** The report as the command line prints it: a total line, then one line per dimension group. */
export function awaitingLines(orgName: string, r: AwaitingReport): string[] {
  if (!r.events) return [`No usage of ${orgName} awaits pricing.`];
  const lines = [
    `${r.events.toLocaleString("en-US")} ${r.events === 1 ? "event" : "events"} of ${orgName} await pricing (oldest ${r.oldest_occurred_at}):`,
  ];
  for (const d of r.dimensions) {
    const held = d.held ? `; ${d.held} held: ${d.held_reasons.join(" | ")}` : "";
    lines.push(
      `  operation=${d.operation} eval_type=${d.eval_type} modality=${d.modality || "(none)"} rule_metric=${d.rule_metric}: ${d.events} events, quantity ${d.quantity}, ${d.oldest_occurred_at} to ${d.newest_occurred_at}${held}`,
    );
  }
  return lines;
}

export type AwaitingGroup = {
  operation: string;
  evalType: string;
  modality: string;
  ruleMetric: string;
  events: number;
  quantity: number;
  oldestOccurredAt: Date;
  newestOccurredAt: Date;
  /** Events a rule covers that are still held, and the reasons (distinct, at most 5). */
  held: number;
  heldReasons: string[];
};

/** The organization's awaiting events per dimension combination, the one with the oldest event first. */
export async function awaitingByDimension(db: Db, organizationUuid: string): Promise<AwaitingGroup[]> {
  const result = (await db.execute(sql`
    select operation, eval_type, modality, rule_metric, count(*)::int as events,
           sum(quantity)::text as quantity, min(occurred_at) as oldest, max(occurred_at) as newest,
           count(held_reason)::int as held,
           (array_agg(distinct held_reason) filter (where held_reason is not null))[1:5] as reasons
      from usage_events_awaiting
     where organization_uuid = ${organizationUuid}
     group by operation, eval_type, modality, rule_metric
     order by min(occurred_at), operation, eval_type, modality, rule_metric`)) as unknown as Rows<{
    operation: string;
    eval_type: string;
    modality: string;
    rule_metric: string;
    events: number | string;
    quantity: string;
    oldest: string | Date;
    newest: string | Date;
    held: number | string;
    reasons: string[] | null;
  }>;
  return result.rows.map((r) => ({
    operation: r.operation,
    evalType: r.eval_type,
    modality: r.modality,
    ruleMetric: r.rule_metric,
    events: Number(r.events),
    quantity: Number(r.quantity),
    oldestOccurredAt: new Date(r.oldest),
    newestOccurredAt: new Date(r.newest),
    held: Number(r.held),
    heldReasons: r.reasons ?? [],
  }));
}
