/**
 * The allowance an eval service asks for before starting work in a workspace: may it start, and
 * how much spend is left before the tightest hard limit — the workspace's budget and the
 * organization's, when they are hard limits. Only starting work is refused: usage that already
 * happened is always recorded, so spend can pass the limit by what runs already in flight cost.
 */
import { and, eq, isNull, or } from "drizzle-orm";
import type { Allowance, AllowanceReason } from "../../contract/budgets";
import { formatUsdExact } from "../../contract/money";
import { budgets } from "../db/schema";
import type { Db, Tx } from "../platform/database";
import { budgetCycle, cycleSpend, spentOf } from "./budgets-spend";

/**
 * Whether work may start in the workspace now. The workspace's limit is checked before the
 * organization's, so `reason` names the workspace's when both are reached. A workspace of another
 * organization has no budget of this one: only the organization's limit applies to it, so callers
 * check that the workspace is the organization's first.
 */
export async function allowanceFor(
  db: Db | Tx,
  organizationId: string,
  workspaceUuid: string,
): Promise<Allowance> {
  const limits = await db
    .select({ workspaceUuid: budgets.workspaceUuid, amountMicros: budgets.amountMicros })
    .from(budgets)
    .where(
      and(
        eq(budgets.organizationUuid, organizationId),
        eq(budgets.hardLimit, true),
        or(isNull(budgets.workspaceUuid), eq(budgets.workspaceUuid, workspaceUuid)),
      ),
    );
  if (!limits.length) return { workspace_uuid: workspaceUuid, allowed: true, remaining: null, reason: null };
  const spend = await cycleSpend(db, await budgetCycle(db, organizationId));
  // The workspace's limit first.
  limits.sort((a, b) => (a.workspaceUuid === null ? 1 : 0) - (b.workspaceUuid === null ? 1 : 0));
  let remaining: bigint | null = null;
  let reason: AllowanceReason | null = null;
  for (const limit of limits) {
    const left = limit.amountMicros - spentOf(spend, limit.workspaceUuid);
    if (remaining === null || left < remaining) remaining = left;
    if (left <= 0n && reason === null)
      reason = limit.workspaceUuid === null ? "organization_hard_limit" : "workspace_hard_limit";
  }
  return {
    workspace_uuid: workspaceUuid,
    allowed: reason === null,
    remaining: formatUsdExact(remaining !== null && remaining > 0n ? remaining : 0n),
    reason,
  };
}
