import { createHash } from "node:crypto";
import { and, asc, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import {
  billingCycles,
  payments,
  usageDaily,
  usageDailyCoarse,
  usageEvents,
  usageVersions,
  workspaceGroupMembers,
  workspaceGroups,
} from "../../db/schema";
import type { Db, Tx } from "../../platform/database";
import { monthStart } from "../usage/filters";

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

/** listCycles' order: start date ascending, then creation. */
const cycleOrder = [asc(billingCycles.startDate), asc(billingCycles.createdAt)];

/** The organization's cycles as stored, start date ascending (none created). */
export const listCycles = (db: Db | Tx, organizationUuid: string) =>
  db
    .select(cycleColumns)
    .from(billingCycles)
    .where(eq(billingCycles.organizationUuid, organizationUuid))
    .orderBy(...cycleOrder);

/**
 * The uuid reads give an organization's current cycle while it has no stored cycle (noCycleYet):
 * derived from the organization id (SHA-256 shaped as an RFC 9562 version 8 uuid), so every read and
 * every API process names the same cycle, and a console can ask for it again by that uuid.
 */
export function firstCycleUuid(organizationUuid: string): string {
  const h = createHash("sha256").update(`billing-cycle:${organizationUuid}`).digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x80;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * What an organization without any stored cycle reads: its current monthly cycle from the 1st
 * (UTC) of the month of its earliest usage (`firstDay`), or of `now` when it has none, under
 * firstCycleUuid. Computed, never stored: cycles are created by the billing commands and the seed,
 * never by a read.
 */
export const noCycleYet = (organizationUuid: string, firstDay: string | null, now = new Date()): Cycle => ({
  billingCycleUuid: firstCycleUuid(organizationUuid),
  organizationUuid,
  startDate: monthStart(firstDay ? new Date(`${firstDay}T00:00:00Z`) : now),
  endDate: null,
});

/** The organization's usage version (usage_versions; 0 before its first usage write), as a column. */
const versionOf = (organizationUuid: string) =>
  sql<
    string | number | null
  >`(select ${usageVersions.version} from ${usageVersions} where ${usageVersions.organizationUuid} = ${organizationUuid})`;

/** Whether the organization has a stored cycle, its earliest usage day and its usage version (one query). */
async function cycleless(db: Db, organizationUuid: string) {
  const [row] = await db
    .select({
      stored: sql<boolean>`exists (select 1 from ${billingCycles} where ${billingCycles.organizationUuid} = ${organizationUuid})`,
      firstDay: sql<
        string | null
      >`(select min(${usageDaily.day})::text from ${usageDaily} where ${usageDaily.organizationUuid} = ${organizationUuid})`,
      version: versionOf(organizationUuid),
    })
    .from(sql`(select 1) as one`);
  const stored = row?.stored === true || String(row?.stored) === "t" || String(row?.stored) === "true";
  return { stored, firstDay: row?.firstDay ?? null, version: Number(row?.version ?? 0) };
}

/**
 * The cycle a usage read is about, in one query: the one named (among the organization's), else
 * the current one (the open cycle, else the one that starts last, as currentCycle picks).
 * Undefined when the named cycle is not the organization's. Never writes: an organization without
 * stored cycles reads noCycleYet (one more query, on that path only).
 */
export async function findCycle(
  db: Db,
  organizationUuid: string,
  uuid: string | undefined,
  now = new Date(),
): Promise<Cycle | undefined> {
  return (await findCycleAtVersion(db, organizationUuid, uuid, now)).cycle;
}

/**
 * findCycle's answer and the organization's usage version, read in the same statement. A usage
 * read keys its cached answers on that version and must read it before its data (usage-cache.ts):
 * this does so without a statement of its own, on every usage call of Billing & Usage.
 */
export async function findCycleAtVersion(
  db: Db,
  organizationUuid: string,
  uuid: string | undefined,
  now = new Date(),
): Promise<{ cycle: Cycle | undefined; version: number }> {
  const c = billingCycles;
  const columns = { ...cycleColumns, version: versionOf(organizationUuid) };
  const rows = uuid
    ? await db
        .select(columns)
        .from(c)
        .where(and(eq(c.organizationUuid, organizationUuid), eq(c.billingCycleUuid, uuid)))
    : await db
        .select(columns)
        .from(c)
        .where(eq(c.organizationUuid, organizationUuid))
        .orderBy(
          // The open cycle first (the earliest, should there be several), then the latest start.
          sql`(${c.endDate} is null) desc`,
          sql`case when ${c.endDate} is null then ${c.startDate} end asc`,
          sql`case when ${c.endDate} is null then ${c.createdAt} end asc`,
          desc(c.startDate),
          desc(c.createdAt),
        )
        .limit(1);
  const row = rows[0];
  if (row) {
    const { version, ...cycle } = row;
    return { cycle, version: Number(version ?? 0) };
  }
  if (uuid && uuid !== firstCycleUuid(organizationUuid)) return { cycle: undefined, version: 0 };
  const { stored, firstDay, version } = await cycleless(db, organizationUuid);
  return { cycle: stored ? undefined : noCycleYet(organizationUuid, firstDay, now), version };
}

/** The organization's cycles as stored, or noCycleYet's when it has none (never writes). */
export async function cyclesOrCurrent(db: Db, organizationUuid: string, now = new Date()): Promise<Cycle[]> {
  const cycles = await listCycles(db, organizationUuid);
  if (cycles.length) return cycles;
  return [noCycleYet(organizationUuid, (await cycleless(db, organizationUuid)).firstDay, now)];
}

/**
 * cyclesOrCurrent's answer in one statement with what the billing cycles list reads beside it: the
 * organization's usage version, read before any cost it keys (as findCycleAtVersion), and each
 * stored cycle's payments (none when the organization has no stored cycle: then undefined).
 */
export async function cyclesOrCurrentAtVersion(
  db: Db,
  organizationUuid: string,
  now = new Date(),
): Promise<{ cycles: Cycle[]; version: number; paid?: Map<string, bigint> }> {
  const rows = await db
    .select({
      ...cycleColumns,
      version: versionOf(organizationUuid),
      // Spelt out: drizzle leaves a one-table select's columns unqualified, and the payments' own
      // billing_cycle_uuid would then answer for the outer row's.
      paid: sql<string>`(select coalesce(sum(p.amount_micros), 0)::text from payments p where p.organization_uuid = ${organizationUuid} and p.billing_cycle_uuid = billing_cycles.billing_cycle_uuid)`,
    })
    .from(billingCycles)
    .where(eq(billingCycles.organizationUuid, organizationUuid))
    .orderBy(...cycleOrder);
  if (rows.length) {
    const cycles = rows.map(({ version: _v, paid: _p, ...cycle }) => cycle);
    const paid = new Map(rows.map((r) => [r.billingCycleUuid, BigInt(r.paid ?? "0")]));
    return { cycles, version: Number(rows[0]?.version ?? 0), paid };
  }
  const { firstDay, version } = await cycleless(db, organizationUuid);
  return { cycles: [noCycleYet(organizationUuid, firstDay, now)], version };
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

/** Guard for callers that must not see another organization's cycle. */
export const cycleOf = (cycles: readonly Cycle[], uuid: string) =>
  cycles.find((c) => c.billingCycleUuid === uuid);
