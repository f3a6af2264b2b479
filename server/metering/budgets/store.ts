/** Reading budgets and their alerts, and shaping them as the API answers them (contract/budgets.ts). */
import { asc, eq, sql } from "drizzle-orm";
import type { Budget, BudgetAlert, BudgetScope } from "../../../contract/budgets";
import { formatUsdExact } from "../../../contract/money";
import { budgets } from "../../db/schema";
import type { Db, Tx } from "../../platform/database";
import type { Cycle } from "../billing/cycles";
import { type CycleSpend, cycleEndOf, percentUsed, spentOf } from "./spend";

export type BudgetRow = typeof budgets.$inferSelect;

/** The organization's budgets: its own first, then the workspaces' by creation. */
export const loadBudgets = (db: Db | Tx, organizationUuid: string): Promise<BudgetRow[]> =>
  db
    .select()
    .from(budgets)
    .where(eq(budgets.organizationUuid, organizationUuid))
    .orderBy(sql`${budgets.workspaceUuid} is not null`, asc(budgets.createdAt), asc(budgets.budgetUuid));

export const scopeOf = (workspaceUuid: string | null): BudgetScope =>
  workspaceUuid === null ? "organization" : "workspace";

/** Whether spend has reached `threshold` percent of the amount (exact integer arithmetic). */
export const reached = (spent: bigint, amount: bigint, threshold: number) =>
  spent * 100n >= BigInt(threshold) * amount;

export function budgetJson(
  row: BudgetRow,
  ctx: {
    cycle: Cycle;
    spend: CycleSpend;
    workspaceName: string | null;
    triggered: readonly number[];
    now?: Date;
  },
): Budget {
  const spent = spentOf(ctx.spend, row.workspaceUuid);
  return {
    budget_uuid: row.budgetUuid,
    scope: scopeOf(row.workspaceUuid),
    workspace_uuid: row.workspaceUuid,
    workspace_name: ctx.workspaceName,
    amount: formatUsdExact(row.amountMicros),
    thresholds: [...row.thresholds],
    hard_limit: row.hardLimit,
    spent: formatUsdExact(spent),
    percent_used: percentUsed(spent, row.amountMicros),
    triggered_thresholds: [...ctx.triggered].sort((a, b) => a - b),
    cycle_start: new Date(`${ctx.cycle.startDate}T00:00:00Z`).toISOString(),
    cycle_end: cycleEndOf(ctx.cycle, ctx.now).toISOString(),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** An alert row joined with its budget and the workspace's name, as alertJson reads it. */
export type AlertRecord = {
  budget_alert_uuid: string;
  budget_uuid: string;
  organization_uuid: string;
  workspace_uuid: string | null;
  workspace_name: string | null;
  amount_micros: string;
  hard_limit: boolean;
  threshold: number;
  cycle_start: string;
  triggered_at: string | Date;
  resolved_at: string | Date | null;
  spent_micros: string;
};

/** The select list and joins that produce AlertRecord rows (`a` is budget_alerts). */
export const alertRecordSql = sql`
  select a.budget_alert_uuid::text, a.budget_uuid::text, a.organization_uuid, b.workspace_uuid::text,
         w.name as workspace_name, b.amount_micros::text, b.hard_limit, a.threshold, a.cycle_start::text,
         a.triggered_at, a.resolved_at, a.spent_micros::text
    from budget_alerts a
    join budgets b on b.budget_uuid = a.budget_uuid
    left join workspaces w on w.workspace_uuid = b.workspace_uuid`;

const iso = (v: string | Date) => (v instanceof Date ? v : new Date(v)).toISOString();

export function alertJson(r: AlertRecord): BudgetAlert {
  return {
    budget_uuid: r.budget_uuid,
    scope: scopeOf(r.workspace_uuid),
    workspace_uuid: r.workspace_uuid,
    workspace_name: r.workspace_name,
    threshold: r.threshold,
    state: r.resolved_at === null ? "triggered" : "resolved",
    amount: formatUsdExact(BigInt(r.amount_micros)),
    spent: formatUsdExact(BigInt(r.spent_micros)),
    cycle_start: iso(`${r.cycle_start}T00:00:00Z`),
    triggered_at: iso(r.triggered_at),
    resolved_at: r.resolved_at === null ? null : iso(r.resolved_at),
  };
}
