/**
 * Budget alerts, evaluated where spend changes — in the transaction that stores usage (ingestion,
 * credits and price adjustments), opens or closes a billing cycle, or creates or changes a budget —
 * never by a polling job that could miss a cycle. Each evaluation compares the current cycle's
 * spend (budgets-spend.ts) with every threshold of the budgets it is given and records the
 * transitions in budget_alerts: a threshold reached for the first time this cycle is inserted
 * (triggered; the unique key makes that once per cycle, even when two API processes evaluate at
 * once), a triggered one spend has fallen back below is resolved, and so is every open alert of
 * an earlier cycle. Each transition queues a webhook event in the same transaction, and leaves a
 * pending email notice that budgets-notify.ts sends after the commit.
 */
import { sql } from "drizzle-orm";
import type { WebhookEventType } from "../../../contract/budgets";
import type { Db, Tx } from "../../platform/database";
import { enqueueWebhookEvent } from "../../webhooks/enqueue";
import { type Cycle, cycleBounds } from "../billing/cycles";
import { arrayLiteral } from "../shared/sql-arrays";
import { budgetCycle, cycleSpend, spentOf } from "./spend";
import { type AlertRecord, alertJson, alertRecordSql, type BudgetRow, loadBudgets, reached } from "./store";

export type AlertTransition = { budgetAlertUuid: string; state: "triggered" | "resolved" };

type Rows<T> = { rows: T[] };

/**
 * Budget changes and evaluations of one organization happen one at a time (the lock ends with the
 * transaction): an evaluation reads the budgets and the spend the one before it committed, and a
 * budget is never deleted under an evaluation inserting its alert. Taken first in a transaction
 * that also locks budget rows, so two such transactions cannot wait on each other.
 */
export const lockBudgets = (tx: Tx, organizationUuid: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`budgets:${organizationUuid}`}))`);

/** Runs `work` in a transaction that takes the organization's budget lock first (lockBudgets). */
export const underBudgetLock = <T>(db: Db, organizationUuid: string, work: (tx: Tx) => Promise<T>) =>
  db.transaction(async (tx: Tx) => {
    await lockBudgets(tx, organizationUuid);
    return work(tx);
  });

/**
 * Records the alert transitions of `budgets` (the organization's budgets whose spend may have
 * changed, read under lockBudgets, which the caller holds) against the spend of `cycle`, the
 * current cycle, and queues their webhook events. Open alerts of other cycles are resolved for
 * every budget of the organization. Returns the transitions (empty when nothing changed).
 */
export async function evaluateBudgets(
  tx: Tx,
  organizationUuid: string,
  budgets: readonly BudgetRow[],
  cycle: Cycle,
  now = new Date(),
): Promise<AlertTransition[]> {
  // Read under the lock: an evaluation that waited sees the spend the one before it committed.
  const spend = await cycleSpend(tx, cycle);
  const uuids: string[] = [];
  const spents: string[] = [];
  const reachedBudgets: string[] = [];
  const reachedThresholds: string[] = [];
  for (const b of budgets) {
    const spent = spentOf(spend, b.workspaceUuid);
    uuids.push(b.budgetUuid);
    spents.push(String(spent));
    for (const t of b.thresholds)
      if (reached(spent, b.amountMicros, t)) {
        reachedBudgets.push(b.budgetUuid);
        reachedThresholds.push(String(t));
      }
  }
  // One statement: resolve other cycles' open alerts, resolve this cycle's alerts no longer
  // reached (a credit, a raised amount, a removed threshold), insert the newly reached ones. The
  // three touch disjoint rows, so one snapshot serves them all.
  const result = (await tx.execute(sql`
    with spent as (
      select * from unnest(${arrayLiteral(uuids)}::uuid[], ${arrayLiteral(spents)}::bigint[])
        as s(budget_uuid, spent_micros)
    ),
    hit as (
      select * from unnest(${arrayLiteral(reachedBudgets)}::uuid[], ${arrayLiteral(reachedThresholds)}::int[])
        as h(budget_uuid, threshold)
    ),
    stale as (
      update budget_alerts a set resolved_at = ${now.toISOString()}::timestamptz
       where a.organization_uuid = ${organizationUuid} and a.resolved_at is null
         and a.cycle_start <> ${cycle.startDate}::date
      returning a.budget_alert_uuid::text as id, 'resolved' as state
    ),
    fallen as (
      update budget_alerts a set resolved_at = ${now.toISOString()}::timestamptz, spent_micros = s.spent_micros
        from spent s
       where a.budget_uuid = s.budget_uuid and a.cycle_start = ${cycle.startDate}::date
         and a.resolved_at is null
         and not exists (select 1 from hit h where h.budget_uuid = a.budget_uuid and h.threshold = a.threshold)
      returning a.budget_alert_uuid::text as id, 'resolved' as state
    ),
    risen as (
      insert into budget_alerts (budget_uuid, organization_uuid, cycle_start, threshold, triggered_at, spent_micros)
      select h.budget_uuid, ${organizationUuid}, ${cycle.startDate}::date, h.threshold,
             ${now.toISOString()}::timestamptz, s.spent_micros
        from hit h join spent s using (budget_uuid)
       order by h.budget_uuid, h.threshold
      on conflict (budget_uuid, cycle_start, threshold) do nothing
      returning budget_alert_uuid::text as id, 'triggered' as state
    )
    select id, state from stale union all select id, state from fallen union all select id, state from risen`)) as unknown as Rows<{
    id: string;
    state: "triggered" | "resolved";
  }>;
  const transitions = result.rows.map((r) => ({ budgetAlertUuid: r.id, state: r.state }));
  if (transitions.length) await queueWebhookEvents(tx, organizationUuid, transitions);
  return transitions;
}

/** One webhook event per transition, with the alert as the API shows it. */
async function queueWebhookEvents(tx: Tx, organizationUuid: string, transitions: AlertTransition[]) {
  const ids = arrayLiteral(transitions.map((t) => t.budgetAlertUuid));
  const records = (await tx.execute(
    sql`${alertRecordSql} where a.budget_alert_uuid = any(${ids}::uuid[])`,
  )) as unknown as Rows<AlertRecord>;
  const byId = new Map(records.rows.map((r) => [r.budget_alert_uuid, r]));
  for (const t of transitions) {
    const record = byId.get(t.budgetAlertUuid);
    if (!record) continue;
    const type: WebhookEventType =
      t.state === "triggered" ? "budget.alert.triggered" : "budget.alert.resolved";
    await enqueueWebhookEvent(tx, { organizationId: organizationUuid, type, data: alertJson(record) });
  }
}

/**
 * Evaluation after a batch of usage was stored (`inserted`, in its transaction) for an organization
 * that has budgets: its own budget and the budgets of the workspaces the batch wrote to, when it
 * wrote to the current cycle. A batch of an earlier cycle (an operator's backfill) changes no
 * budget's spend. The first batch of a new cycle also resolves the open alerts of the cycle before.
 * The budgets are read again under the lock: the caller's cached list only says there are some.
 */
export async function evaluateIngestedBudgets(
  tx: Tx,
  organizationUuid: string,
  cycles: readonly Cycle[],
  inserted: readonly { occurredAt: Date; workspaceUuid?: string | null }[],
  now: Date,
): Promise<AlertTransition[]> {
  const cycle = await budgetCycle(tx, organizationUuid, cycles, now);
  const { start, end } = cycleBounds(cycle);
  const touched = new Set<string>();
  let inCycle = false;
  for (const r of inserted)
    if (r.occurredAt >= start && (!end || r.occurredAt < end)) {
      inCycle = true;
      if (r.workspaceUuid) touched.add(r.workspaceUuid);
    }
  if (!inCycle) return [];
  await lockBudgets(tx, organizationUuid);
  const budgets = await loadBudgets(tx, organizationUuid);
  const affected = budgets.filter((b) => b.workspaceUuid === null || touched.has(b.workspaceUuid));
  return evaluateBudgets(tx, organizationUuid, affected, cycle, now);
}

/**
 * Evaluation of every budget of the organization against its current cycle, read in `tx`: after a
 * billing cycle is opened or closed (a new cycle resolves the last one's open alerts), and after a
 * budget is created or changed (a budget set below the spend so far triggers at once).
 */
export async function evaluateAllBudgets(
  tx: Tx,
  organizationUuid: string,
  now = new Date(),
): Promise<AlertTransition[]> {
  await lockBudgets(tx, organizationUuid);
  const budgets = await loadBudgets(tx, organizationUuid);
  if (!budgets.length) return [];
  return evaluateBudgets(
    tx,
    organizationUuid,
    budgets,
    await budgetCycle(tx, organizationUuid, undefined, now),
    now,
  );
}
