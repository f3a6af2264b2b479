/**
 * Budgets as administrators read and change them. Each change is one transaction with its audit
 * entry (before/after) and an evaluation of the organization's budgets, so a budget set below the
 * spend so far triggers its alerts at once; the alert emails go out after the commit.
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Budget, BudgetAlert, BudgetCreate, BudgetUpdate } from "../../../contract/budgets";
import { DEFAULT_BUDGET_THRESHOLDS } from "../../../contract/budgets";
import { formatUsdExact, parseUsd } from "../../../contract/money";
import { budgets, workspaces } from "../../db/schema";
import { type Actor, type Snapshot, writeAudit } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { DomainError } from "../../platform/domain-error";
import { evaluateAllBudgets, underBudgetLock } from "./eval";
import { noticeBudgetAlerts } from "./notify";
import { budgetCycle, cycleSpend } from "./spend";
import { type AlertRecord, alertJson, alertRecordSql, type BudgetRow, budgetJson } from "./store";

type Rows<T> = { rows: T[] };

export const budgetNotFound = () => new DomainError("Budget not found.", "not_found");

/** The organization's budgets as the API shows them (one query each for cycle, spend and alerts). */
export async function listBudgets(
  db: Db,
  organizationUuid: string,
  filter: { budgetUuid?: string; workspaceUuid?: string } = {},
  now = new Date(),
): Promise<Budget[]> {
  const rows = await db
    .select({ budget: budgets, workspaceName: workspaces.name })
    .from(budgets)
    .leftJoin(workspaces, eq(workspaces.workspaceUuid, budgets.workspaceUuid))
    .where(
      and(
        eq(budgets.organizationUuid, organizationUuid),
        filter.budgetUuid ? eq(budgets.budgetUuid, filter.budgetUuid) : undefined,
        filter.workspaceUuid ? eq(budgets.workspaceUuid, filter.workspaceUuid) : undefined,
      ),
    )
    .orderBy(sql`${budgets.workspaceUuid} is not null`, asc(workspaces.name), asc(budgets.budgetUuid));
  if (!rows.length) return [];
  const cycle = await budgetCycle(db, organizationUuid, undefined, now);
  const [spend, open] = await Promise.all([
    cycleSpend(db, cycle),
    db.execute(sql`
      select budget_uuid::text, threshold from budget_alerts
       where organization_uuid = ${organizationUuid} and cycle_start = ${cycle.startDate}::date
         and resolved_at is null`) as unknown as Promise<Rows<{ budget_uuid: string; threshold: number }>>,
  ]);
  const triggered = new Map<string, number[]>();
  for (const r of open.rows)
    triggered.set(r.budget_uuid, [...(triggered.get(r.budget_uuid) ?? []), r.threshold]);
  return rows.map(({ budget, workspaceName }) =>
    budgetJson(budget, {
      cycle,
      spend,
      workspaceName,
      triggered: triggered.get(budget.budgetUuid) ?? [],
      now,
    }),
  );
}

/** The triggered, unresolved alerts of the current cycle, newest first. */
export async function openAlerts(db: Db, organizationUuid: string, now = new Date()): Promise<BudgetAlert[]> {
  const cycle = await budgetCycle(db, organizationUuid, undefined, now);
  const result = (await db.execute(sql`${alertRecordSql}
     where a.organization_uuid = ${organizationUuid} and a.resolved_at is null
       and a.cycle_start = ${cycle.startDate}::date
     order by a.triggered_at desc, a.threshold desc`)) as unknown as Rows<AlertRecord>;
  return result.rows.map(alertJson);
}

/** What the audit log keeps of a budget. */
const snapshot = (b: BudgetRow): Snapshot => ({
  scope: b.workspaceUuid === null ? "organization" : "workspace",
  workspace_uuid: b.workspaceUuid,
  amount: formatUsdExact(b.amountMicros),
  thresholds: [...b.thresholds],
  hard_limit: b.hardLimit,
});

const ascending = (t: readonly number[]) => [...t].sort((a, b) => a - b);

/** The workspace's name, when it is a live workspace of the organization; else 404. */
export async function liveWorkspaceName(tx: Db | Tx, organizationUuid: string, workspaceUuid: string) {
  const [row] = await tx
    .select({ name: workspaces.name })
    .from(workspaces)
    .where(
      and(
        eq(workspaces.workspaceUuid, workspaceUuid),
        eq(workspaces.organizationUuid, organizationUuid),
        isNull(workspaces.deletedAt),
      ),
    );
  if (!row) throw new DomainError("Workspace not found.", "not_found");
  return row.name;
}

/** A change's transaction, then its alert emails once it committed. */
async function change<T>(db: Db, organizationUuid: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  let alertsChanged = false;
  const result = await underBudgetLock(db, organizationUuid, async (tx) => {
    const value = await work(tx);
    alertsChanged = (await evaluateAllBudgets(tx, organizationUuid)).length > 0;
    return value;
  });
  if (alertsChanged) noticeBudgetAlerts(db, organizationUuid);
  return result;
}

/**
 * The workspace a budget's scope names (null for the organization's), refusing a scope and
 * workspace_uuid that disagree: the create and the replay (budget-simulate.ts) judge it alike.
 */
export function scopedWorkspace(input: Pick<BudgetCreate, "scope" | "workspace_uuid">): string | null {
  const workspaceUuid = input.workspace_uuid ?? null;
  if (input.scope === "workspace" && !workspaceUuid)
    throw new DomainError('workspace_uuid is required for a budget with scope "workspace".', "invalid");
  if (input.scope === "organization" && workspaceUuid)
    throw new DomainError(
      'workspace_uuid must be omitted for a budget with scope "organization"; use scope "workspace".',
      "invalid",
    );
  return workspaceUuid;
}

export async function createBudget(
  db: Db,
  organizationUuid: string,
  input: BudgetCreate,
  actor: Actor,
): Promise<string> {
  const workspaceUuid = scopedWorkspace(input);
  return change(db, organizationUuid, async (tx) => {
    const label = workspaceUuid
      ? await liveWorkspaceName(tx, organizationUuid, workspaceUuid)
      : "Organization";
    const [row] = await tx
      .insert(budgets)
      .values({
        organizationUuid,
        workspaceUuid,
        amountMicros: parseUsd(input.amount),
        thresholds: ascending(input.thresholds ?? DEFAULT_BUDGET_THRESHOLDS),
        hardLimit: input.hard_limit ?? false,
      })
      // Either partial unique index: the scope has a budget already (perhaps created just now).
      .onConflictDoNothing()
      .returning();
    if (!row)
      throw new DomainError(
        workspaceUuid
          ? "This workspace already has a budget; change that one instead."
          : "The organization already has a budget; change that one instead.",
        "conflict",
      );
    await writeAudit(tx, {
      organizationUuid,
      actor,
      action: "budget.created",
      target: { type: "budget", id: row.budgetUuid, label },
      after: snapshot(row),
    });
    return row.budgetUuid;
  });
}

/** The budget locked for a change, with its label for the audit log; 404 when not the organization's. */
async function lockedBudget(tx: Tx, organizationUuid: string, budgetUuid: string) {
  const [found] = await tx
    .select({ budget: budgets, workspaceName: workspaces.name })
    .from(budgets)
    .leftJoin(workspaces, eq(workspaces.workspaceUuid, budgets.workspaceUuid))
    .where(and(eq(budgets.budgetUuid, budgetUuid), eq(budgets.organizationUuid, organizationUuid)))
    .for("update", { of: budgets });
  if (!found) throw budgetNotFound();
  return { row: found.budget, label: found.workspaceName ?? "Organization" };
}

export async function updateBudget(
  db: Db,
  organizationUuid: string,
  budgetUuid: string,
  input: BudgetUpdate,
  actor: Actor,
): Promise<void> {
  await change(db, organizationUuid, async (tx) => {
    const { row, label } = await lockedBudget(tx, organizationUuid, budgetUuid);
    const next = {
      amountMicros: input.amount === undefined ? row.amountMicros : parseUsd(input.amount),
      thresholds: input.thresholds === undefined ? row.thresholds : ascending(input.thresholds),
      hardLimit: input.hard_limit ?? row.hardLimit,
    };
    const before = snapshot(row);
    const after = snapshot({ ...row, ...next });
    // Nothing changed: no write and no audit entry.
    if (JSON.stringify(before) === JSON.stringify(after)) return;
    await tx
      .update(budgets)
      .set({ ...next, updatedAt: new Date() })
      .where(eq(budgets.budgetUuid, budgetUuid));
    await writeAudit(tx, {
      organizationUuid,
      actor,
      action: "budget.changed",
      target: { type: "budget", id: budgetUuid, label },
      before,
      after,
    });
  });
}

export async function deleteBudget(
  db: Db,
  organizationUuid: string,
  budgetUuid: string,
  actor: Actor,
): Promise<void> {
  await underBudgetLock(db, organizationUuid, async (tx) => {
    const { row, label } = await lockedBudget(tx, organizationUuid, budgetUuid);
    // Its alerts go with it (foreign key cascade): no "resolved" notice for a budget that is gone.
    await tx.delete(budgets).where(eq(budgets.budgetUuid, budgetUuid));
    await writeAudit(tx, {
      organizationUuid,
      actor,
      action: "budget.deleted",
      target: { type: "budget", id: budgetUuid, label },
      before: snapshot(row),
    });
  });
}
