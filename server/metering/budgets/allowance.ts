/**
 * The allowance an eval service asks for before starting work in a workspace: may it start, and
 * how much spend is free before the tightest hard limit — the workspace's budget and the
 * organization's, when they are hard limits — once what running runs hold reserved is set aside
 * (reservations.ts). Only starting work is refused: usage that already happened is always
 * recorded, so spend can pass the limit by what runs already in flight cost.
 */
import { and, eq, isNull, or } from "drizzle-orm";
import type { Allowance, AllowanceReason } from "../../../contract/budgets";
import { formatUsdExact } from "../../../contract/money";
import { budgets } from "../../db/schema";
import type { Db, Tx } from "../../platform/database";
import { heldOf, heldReservations } from "./reservations";
import { budgetCycle, cycleSpend, spentOf } from "./spend";

export type Judgement = Allowance & {
  /** With an estimate: how much more free spend the run needed (0n when it fits). */
  shortfallMicros: bigint;
  freeMicros: bigint | null;
};

/**
 * Whether work may start in the workspace now, and with `estimateMicros` whether that much can be
 * reserved: it must fit in every covering hard limit's free spend. Without an estimate, or with
 * an estimate of 0, work may start while any spend is free. The workspace's limit is checked before the organization's, so
 * `reason` names the workspace's when both refuse. A workspace of another organization has no
 * budget of this one: only the organization's limit applies to it, so callers check that the
 * workspace is the organization's first.
 */
export async function judgeAllowance(
  db: Db | Tx,
  organizationId: string,
  workspaceUuid: string,
  estimateMicros: bigint | null = null,
  now = new Date(),
): Promise<Judgement> {
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
  if (!limits.length)
    return {
      workspace_uuid: workspaceUuid,
      allowed: true,
      remaining: null,
      reason: null,
      spent: null,
      reserved: null,
      free: null,
      shortfallMicros: 0n,
      freeMicros: null,
    };
  const [spend, holds] = await Promise.all([
    budgetCycle(db, organizationId).then((cycle) => cycleSpend(db, cycle)),
    heldReservations(db, organizationId, now),
  ]);
  // The workspace's limit first.
  limits.sort((a, b) => (a.workspaceUuid === null ? 1 : 0) - (b.workspaceUuid === null ? 1 : 0));
  let tightest: { spent: bigint; held: bigint; free: bigint } | null = null;
  let reason: AllowanceReason | null = null;
  let shortfall = 0n;
  for (const limit of limits) {
    const spent = spentOf(spend, limit.workspaceUuid);
    const held = heldOf(holds, limit.workspaceUuid);
    const free = limit.amountMicros - spent - held;
    if (tightest === null || free < tightest.free) tightest = { spent, held, free };
    // Some free spend at all, whatever the estimate: an estimate of 0 must not start work on a
    // limit with nothing free (it would hold nothing and spend anyway).
    const needed = estimateMicros !== null && estimateMicros > 0n ? estimateMicros : 1n;
    if (free < needed) {
      if (reason === null)
        reason = limit.workspaceUuid === null ? "organization_hard_limit" : "workspace_hard_limit";
      if (estimateMicros !== null && needed - free > shortfall) shortfall = needed - free;
    }
  }
  const t = tightest ?? { spent: 0n, held: 0n, free: 0n };
  const free = t.free > 0n ? t.free : 0n;
  return {
    workspace_uuid: workspaceUuid,
    allowed: reason === null,
    remaining: formatUsdExact(free),
    reason,
    spent: formatUsdExact(t.spent),
    reserved: formatUsdExact(t.held),
    free: formatUsdExact(free),
    shortfallMicros: shortfall,
    freeMicros: free,
  };
}

/** The allowance as GET /v1/usage/allowance answers it. */
export async function allowanceFor(
  db: Db | Tx,
  organizationId: string,
  workspaceUuid: string,
): Promise<Allowance> {
  const {
    shortfallMicros: _s,
    freeMicros: _f,
    ...allowance
  } = await judgeAllowance(db, organizationId, workspaceUuid);
  return allowance;
}
