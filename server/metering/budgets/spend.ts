/**
 * What a budget is measured against: the organization's current billing cycle (the one the
 * dashboard shows by default) and the spend in it, read from usage_daily_coarse — the rollup the
 * dashboard's totals come from, written in the same transaction as the events — never from a scan
 * of raw events. Credits and price adjustments are events with a negative cost, so they are in the
 * sums too.
 */
import { sql } from "drizzle-orm";
import type { Db, Tx } from "../../platform/database";
import { type Cycle, currentCycle, listCycles, noCycleYet } from "../billing/cycles";

type Rows<T> = { rows: T[] };

/**
 * The current cycle as the dashboard picks it (the open one, else the one that starts last), from
 * `cycles` when the caller has them (ingestion's cache) or the database; an organization without
 * stored cycles gets noCycleYet's computed cycle (one more query, on that path only).
 */
export async function budgetCycle(
  db: Db | Tx,
  organizationUuid: string,
  cycles?: readonly Cycle[],
  now = new Date(),
): Promise<Cycle> {
  const stored = cycles ?? (await listCycles(db, organizationUuid));
  const current = currentCycle(stored);
  if (current) return current;
  const first = (await db.execute(sql`
    select min(day)::text as day from usage_daily_coarse where organization_uuid = ${organizationUuid}`)) as unknown as Rows<{
    day: string | null;
  }>;
  return noCycleYet(organizationUuid, first.rows[0]?.day ?? null, now);
}

export type CycleSpend = {
  /** Every usage of the organization in the cycle, with and without a workspace. */
  total: bigint;
  byWorkspace: Map<string, bigint>;
};

/** The cycle's spend, in total and per workspace (one aggregate over the cycle's coarse rows). */
export async function cycleSpend(db: Db | Tx, cycle: Cycle): Promise<CycleSpend> {
  const result = (await db.execute(sql`
    select workspace_uuid::text as ws, sum(cost_micros_sum)::text as cost
      from usage_daily_coarse
     where organization_uuid = ${cycle.organizationUuid} and day >= ${cycle.startDate}::date
       ${cycle.endDate ? sql`and day < ${cycle.endDate}::date` : sql``}
     group by workspace_uuid`)) as unknown as Rows<{ ws: string | null; cost: string }>;
  const byWorkspace = new Map<string, bigint>();
  let total = 0n;
  for (const r of result.rows) {
    const cost = BigInt(r.cost);
    total += cost;
    if (r.ws) byWorkspace.set(r.ws, cost);
  }
  return { total, byWorkspace };
}

/** A budget's spend: the whole organization's, or one workspace's. */
export const spentOf = (spend: CycleSpend, workspaceUuid: string | null): bigint =>
  workspaceUuid === null ? spend.total : (spend.byWorkspace.get(workspaceUuid) ?? 0n);

/**
 * The cycle's end as an instant: its end date, or for the open cycle the 1st of the month after
 * `now` (when a monthly cycle is next closed).
 */
export function cycleEndOf(cycle: Cycle, now = new Date()): Date {
  if (cycle.endDate) return new Date(`${cycle.endDate}T00:00:00Z`);
  const start = new Date(`${cycle.startDate}T00:00:00Z`);
  const from = now > start ? now : start;
  return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
}

/** spent ÷ amount × 100, rounded to two decimals (exact integer arithmetic until the division). */
export function percentUsed(spent: bigint, amount: bigint): number {
  if (amount <= 0n) return 0;
  const hundredths = (spent * 10_000n) / amount;
  return Number(hundredths) / 100;
}
