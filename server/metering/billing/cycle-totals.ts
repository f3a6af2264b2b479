// What a billing cycle costs per workspace group, what was paid on it and what is still owed: the
// billing cycles list's and the operator's totals, for one cycle or many in a few statements.
import { and, asc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { payments, usageDailyCoarse, workspaceGroupMembers, workspaceGroups } from "../../db/schema";
import type { Db } from "../../platform/database";
import type { Cycle } from "./cycles";

export const DEFAULT_GROUP = "default";

export type GroupTotal = { groupName: string; totalMicros: bigint; balanceMicros: bigint };

/**
 * The organization's workspace groups (by name) and the group each grouped workspace counts in: a
 * workspace in several groups counts in the first by name only, so nothing is billed twice.
 * Workspaces in no group count in DEFAULT_GROUP.
 */
export async function workspaceGroupsOf(db: Db, org: string) {
  // One statement: the groups in name order, each with its workspaces (a group without any once,
  // with none).
  const rows = await db
    .select({
      uuid: workspaceGroups.workspaceGroupUuid,
      name: workspaceGroups.groupName,
      prepaid: workspaceGroups.prepaidMicros,
      ws: workspaceGroupMembers.workspaceUuid,
    })
    .from(workspaceGroups)
    .leftJoin(
      workspaceGroupMembers,
      eq(workspaceGroupMembers.workspaceGroupUuid, workspaceGroups.workspaceGroupUuid),
    )
    .where(eq(workspaceGroups.organizationUuid, org))
    .orderBy(asc(workspaceGroups.groupName));
  const groups: { uuid: string; name: string; prepaid: bigint }[] = [];
  const groupOfWorkspace = new Map<string, string>();
  for (const { ws, ...group } of rows) {
    if (groups.at(-1)?.uuid !== group.uuid) groups.push(group);
    // A workspace in several groups counts in the first by name.
    if (ws && !groupOfWorkspace.has(ws)) groupOfWorkspace.set(ws, group.name);
  }
  return { groups, groupOfWorkspace };
}

export type CycleTotals = { groups: GroupTotal[]; unattributedMicros: bigint; paidMicros: bigint };

/** A cycle's total cost: its groups' costs plus the usage without a workspace. */
export function cycleTotalMicros({ groups, unattributedMicros }: CycleTotals): bigint {
  let total = unattributedMicros;
  for (const g of groups) total += g.totalMicros;
  return total;
}

/**
 * Cost per workspace group within the cycle, from the daily rollup. Group "default" holds the
 * workspaces in no group (and a stored group of that name, if any); usage without a workspace is
 * returned apart as unattributed. balance = cost − the group's prepaid amount (what is still owed;
 * negative when prepaid credit is left).
 */
export async function groupTotals(db: Db, cycle: Cycle): Promise<CycleTotals> {
  const [one] = await groupTotalsOfCycles(db, cycle.organizationUuid, [cycle]);
  if (!one) throw new Error("groupTotalsOfCycles answered no totals for one cycle");
  return one.totals;
}

/** One cycle's cost on one workspace (null: usage without a workspace), in micro-USD as text. */
export type CycleCost = { cycle: string | null; ws: string | null; cost: string };

/** How groupTotalsOfCycles reads the costs: straight from the rollup, or through a cache. */
export type CycleCostsReader = (db: Db, org: string, cycles: readonly Cycle[]) => Promise<CycleCost[]>;

/**
 * Each of the organization's `cycles`' cost per workspace, summed from the coarse daily rollup
 * (the same sums per workspace as usage_daily, in a fraction of its rows) in one statement.
 */
export async function cycleWorkspaceCosts(
  db: Db,
  org: string,
  cycles: readonly Cycle[],
): Promise<CycleCost[]> {
  if (!cycles.length) return [];
  const coarse = usageDailyCoarse;
  const cycleOfDay = sql<string | null>`case ${sql.join(
    cycles.map(
      (c) =>
        sql`when ${coarse.day} >= ${c.startDate}${c.endDate ? sql` and ${coarse.day} < ${c.endDate}` : sql``} then ${c.billingCycleUuid}`,
    ),
    sql` `,
  )} end`;
  // ISO dates: their text order is their time order.
  const first = cycles.map((c) => c.startDate).sort()[0] ?? "";
  const ends = cycles.map((c) => c.endDate);
  const last = ends.includes(null) ? null : ((ends as string[]).sort().at(-1) ?? null);
  return (
    db
      .select({
        cycle: cycleOfDay,
        ws: coarse.workspaceUuid,
        cost: sql<string>`coalesce(sum(${coarse.costMicrosSum}), 0)::text`,
      })
      .from(coarse)
      .where(
        and(
          eq(coarse.organizationUuid, org),
          gte(coarse.day, first),
          last ? lt(coarse.day, last) : undefined,
        ),
      )
      // By position: the CASE written again would carry other parameters, and not match.
      .groupBy(sql`1`, sql`2`)
  );
}

/** Each of `cycles`' payments, summed (a cycle without payments is left out). */
async function paymentsOf(db: Db, org: string, cycles: readonly Cycle[]): Promise<Map<string, bigint>> {
  const rows = await db
    .select({
      cycle: payments.billingCycleUuid,
      sum: sql<string>`coalesce(sum(${payments.amountMicros}), 0)::text`,
    })
    .from(payments)
    .where(
      and(
        eq(payments.organizationUuid, org),
        inArray(
          payments.billingCycleUuid,
          cycles.map((c) => c.billingCycleUuid),
        ),
      ),
    )
    .groupBy(payments.billingCycleUuid);
  return new Map(rows.map((p) => [p.cycle, BigInt(p.sum)]));
}

/**
 * groupTotals of each of the organization's `cycles`, each beside its cycle, in their order, in
 * three statements whatever their number (the groups with their workspaces, every cycle's cost per
 * workspace, every cycle's payments), where one cycle after another took four each: on the
 * embedded database every statement also waits its turn behind other requests'. Cycles do not
 * overlap, so each day of usage counts in at most one. `readCosts` reads the costs (the billing
 * cycles list's through a cache kept per usage version: cycle-costs-cache.ts); `paid`, when given,
 * is every cycle's payments, already read (cyclesOrCurrentAtVersion), and spares the third.
 */
export async function groupTotalsOfCycles(
  db: Db,
  org: string,
  cycles: readonly Cycle[],
  readCosts: CycleCostsReader = cycleWorkspaceCosts,
  paid?: Map<string, bigint>,
): Promise<{ cycle: Cycle; totals: CycleTotals }[]> {
  if (!cycles.length) return [];
  const { groups, groupOfWorkspace } = await workspaceGroupsOf(db, org);
  const costs = await readCosts(db, org, cycles);
  const paidOf = paid ?? (await paymentsOf(db, org, cycles));
  const costsOf = new Map<string | null, typeof costs>();

  for (const c of costs) {
    const bucket = costsOf.get(c.cycle);
    if (bucket) bucket.push(c);
    else costsOf.set(c.cycle, [c]);
  }
  const prepaid = new Map(groups.map((g) => [g.name, g.prepaid]));

  return cycles.map((cycle) => {
    const totals = new Map<string, bigint>([[DEFAULT_GROUP, 0n]]);
    for (const g of groups) totals.set(g.name, 0n);
    let unattributedMicros = 0n;
    for (const c of costsOf.get(cycle.billingCycleUuid) ?? []) {
      const micros = BigInt(c.cost);
      if (c.ws === null) {
        unattributedMicros += micros;
        continue;
      }
      const name = groupOfWorkspace.get(c.ws) ?? DEFAULT_GROUP;
      totals.set(name, (totals.get(name) ?? 0n) + micros);
    }
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
    const paidMicros = paidOf.get(cycle.billingCycleUuid) ?? 0n;
    return { cycle, totals: { groups: list, unattributedMicros, paidMicros } };
  });
}
