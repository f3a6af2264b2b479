import { and, asc, eq, gte, lt, sql } from "drizzle-orm";
import {
  billingCycles,
  payments,
  usageDaily,
  usageEvents,
  workspaceGroupMembers,
  workspaceGroups,
} from "../db/schema";
import type { Db, Tx } from "../platform/database";
import { monthStart } from "./filters";

export type Cycle = {
  billingCycleUuid: string;
  organizationUuid: string;
  /** "YYYY-MM-DD", inclusive, from midnight UTC. */
  startDate: string;
  /** "YYYY-MM-DD", exclusive, at midnight UTC; null for the current cycle. */
  endDate: string | null;
};

const cycleColumns = {
  billingCycleUuid: billingCycles.billingCycleUuid,
  organizationUuid: billingCycles.organizationUuid,
  startDate: billingCycles.startDate,
  endDate: billingCycles.endDate,
};

/** The organization's cycles as stored, start date ascending (none created). */
export const listCycles = (db: Db | Tx, organizationUuid: string) =>
  db
    .select(cycleColumns)
    .from(billingCycles)
    .where(eq(billingCycles.organizationUuid, organizationUuid))
    .orderBy(asc(billingCycles.startDate), asc(billingCycles.createdAt));

/**
 * The organization's billing cycles, start date ascending. An organization without any gets its
 * current monthly cycle on first read, starting on the 1st (UTC) of the month of its earliest usage,
 * or of `now` when it has none; concurrent first reads create it once.
 */
export async function ensureCycles(db: Db, organizationUuid: string, now = new Date()): Promise<Cycle[]> {
  const existing = await listCycles(db, organizationUuid);
  if (existing.length) return existing;
  return db.transaction(async (tx: Tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`billing_cycles:${organizationUuid}`}))`);
    const again = await listCycles(tx, organizationUuid);
    if (again.length) return again;
    const [first] = await tx
      .select({ day: sql<string | null>`min(${usageDaily.day})::text` })
      .from(usageDaily)
      .where(eq(usageDaily.organizationUuid, organizationUuid));
    const from = first?.day ? new Date(`${first.day}T00:00:00Z`) : now;
    await tx.insert(billingCycles).values({ organizationUuid, startDate: monthStart(from), endDate: null });
    return listCycles(tx, organizationUuid);
  });
}

/** The open cycle (end date null), else the one that starts last. */
export function currentCycle(cycles: readonly Cycle[]): Cycle | undefined {
  return cycles.find((c) => c.endDate === null) ?? cycles[cycles.length - 1];
}

/** [start, end) as instants at midnight UTC; end null: open-ended. */
export function cycleBounds(c: Cycle): { start: Date; end: Date | null } {
  return {
    start: new Date(`${c.startDate}T00:00:00Z`),
    end: c.endDate ? new Date(`${c.endDate}T00:00:00Z`) : null,
  };
}

/** usage_daily rows of the cycle. */
export const dailyInCycle = (c: Cycle) =>
  and(
    eq(usageDaily.organizationUuid, c.organizationUuid),
    gte(usageDaily.day, c.startDate),
    c.endDate ? lt(usageDaily.day, c.endDate) : undefined,
  );

/** usage_events rows of the cycle. */
export const eventsInCycle = (c: Cycle) => {
  const { start, end } = cycleBounds(c);
  return and(
    eq(usageEvents.organizationUuid, c.organizationUuid),
    gte(usageEvents.occurredAt, start),
    end ? lt(usageEvents.occurredAt, end) : undefined,
  );
};

export const DEFAULT_GROUP = "default";

export type GroupTotal = { groupName: string; totalMicros: bigint; balanceMicros: bigint };

/**
 * Cost per workspace group within the cycle, from usage_daily. Group "default" holds the
 * workspaces in no group (and a stored group of that name, if any); usage without a workspace is
 * returned apart as unattributed. balance = cost − the group's prepaid amount (what is still owed;
 * negative when prepaid credit is left).
 */
export async function groupTotals(
  db: Db,
  cycle: Cycle,
): Promise<{ groups: GroupTotal[]; unattributedMicros: bigint; paidMicros: bigint }> {
  const org = cycle.organizationUuid;
  const groups = await db
    .select({
      uuid: workspaceGroups.workspaceGroupUuid,
      name: workspaceGroups.groupName,
      prepaid: workspaceGroups.prepaidMicros,
    })
    .from(workspaceGroups)
    .where(eq(workspaceGroups.organizationUuid, org))
    .orderBy(asc(workspaceGroups.groupName));
  const members = await db
    .select({ group: workspaceGroupMembers.workspaceGroupUuid, ws: workspaceGroupMembers.workspaceUuid })
    .from(workspaceGroupMembers)
    .innerJoin(
      workspaceGroups,
      eq(workspaceGroups.workspaceGroupUuid, workspaceGroupMembers.workspaceGroupUuid),
    )
    .where(eq(workspaceGroups.organizationUuid, org))
    .orderBy(asc(workspaceGroups.groupName));
  const costs = await db
    .select({
      ws: usageDaily.workspaceUuid,
      cost: sql<string>`coalesce(sum(${usageDaily.costMicrosSum}), 0)::text`,
    })
    .from(usageDaily)
    .where(dailyInCycle(cycle))
    .groupBy(usageDaily.workspaceUuid);
  const [paid] = await db
    .select({ sum: sql<string>`coalesce(sum(${payments.amountMicros}), 0)::text` })
    .from(payments)
    .where(and(eq(payments.organizationUuid, org), eq(payments.billingCycleUuid, cycle.billingCycleUuid)));

  const nameOf = new Map(groups.map((g) => [g.uuid, g.name]));
  // A workspace in several groups counts in the first by name only, so nothing is billed twice.
  const groupOfWorkspace = new Map<string, string>();
  for (const m of members) {
    const name = nameOf.get(m.group);
    if (name && !groupOfWorkspace.has(m.ws)) groupOfWorkspace.set(m.ws, name);
  }
  const totals = new Map<string, bigint>([[DEFAULT_GROUP, 0n]]);
  for (const g of groups) totals.set(g.name, 0n);
  let unattributedMicros = 0n;
  for (const c of costs) {
    const micros = BigInt(c.cost);
    if (c.ws === null) {
      unattributedMicros += micros;
      continue;
    }
    const name = groupOfWorkspace.get(c.ws) ?? DEFAULT_GROUP;
    totals.set(name, (totals.get(name) ?? 0n) + micros);
  }
  const prepaid = new Map(groups.map((g) => [g.name, g.prepaid]));
  const list = [...totals.entries()]
    .map(([groupName, totalMicros]) => ({
      groupName,
      totalMicros,
      balanceMicros: totalMicros - (prepaid.get(groupName) ?? 0n),
    }))
    .sort((a, b) =>
      a.groupName === DEFAULT_GROUP
        ? 1
        : b.groupName === DEFAULT_GROUP
          ? -1
          : a.groupName.localeCompare(b.groupName),
    );
  return { groups: list, unattributedMicros, paidMicros: BigInt(paid?.sum ?? "0") };
}

/** Guard for callers that must not see another organization's cycle. */
export const cycleOf = (cycles: readonly Cycle[], uuid: string) =>
  cycles.find((c) => c.billingCycleUuid === uuid);
