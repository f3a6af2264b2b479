import { createHash } from "node:crypto";
import { and, asc, desc, eq, gte, lt, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { billingCycles, usageDaily, usageEvents, usageVersions } from "../../db/schema";
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

/** The rows of a daily rollup (usage_daily, _mid or _coarse) on the cycle's days. */
export const dailyInCycle = (c: Cycle, t: { organizationUuid: AnyPgColumn; day: AnyPgColumn } = usageDaily) =>
  and(
    eq(t.organizationUuid, c.organizationUuid),
    gte(t.day, c.startDate),
    c.endDate ? lt(t.day, c.endDate) : undefined,
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

// Group totals (cycle-totals.ts), also exported here: the API and the seed read cycles with them.
export {
  type CycleTotals,
  cycleTotalMicros,
  DEFAULT_GROUP,
  type GroupTotal,
  groupTotals,
  groupTotalsOfCycles,
} from "./cycle-totals";

/** Guard for callers that must not see another organization's cycle. */
export const cycleOf = (cycles: readonly Cycle[], uuid: string) =>
  cycles.find((c) => c.billingCycleUuid === uuid);
