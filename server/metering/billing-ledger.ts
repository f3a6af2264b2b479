/**
 * What operators read of an organization's billing set-up: its stored cycles with what was paid
 * on each, its payments and its workspace groups. Plain reads of the tables the billing actions
 * (billing.ts) write; the customers' bill (cycles.ts) is computed elsewhere.
 */
import { asc, desc, eq, sql } from "drizzle-orm";
import { billingCycles, payments, workspaceGroupMembers, workspaceGroups, workspaces } from "../db/schema";
import type { Db } from "../platform/database";

export type CycleWithPaid = {
  billingCycleUuid: string;
  startDate: string;
  endDate: string | null;
  paidMicros: bigint;
};

/** The organization's stored cycles, newest first, each with the sum of its payments. */
export async function listCyclesWithPaid(db: Db, organizationUuid: string): Promise<CycleWithPaid[]> {
  const rows = await db
    .select({
      billingCycleUuid: billingCycles.billingCycleUuid,
      startDate: billingCycles.startDate,
      endDate: billingCycles.endDate,
      // Spelled out: inside the subquery drizzle would leave the outer column unqualified.
      paid: sql<string>`coalesce((select sum(p.amount_micros) from payments p
        where p.billing_cycle_uuid = "billing_cycles"."billing_cycle_uuid"), 0)::text`,
    })
    .from(billingCycles)
    .where(eq(billingCycles.organizationUuid, organizationUuid))
    .orderBy(desc(billingCycles.startDate), desc(billingCycles.createdAt));
  return rows.map(({ paid, ...c }) => ({ ...c, paidMicros: BigInt(paid) }));
}

/** The organization's payments, newest first. */
export const listPayments = (db: Db, organizationUuid: string) =>
  db
    .select({
      paymentUuid: payments.paymentUuid,
      billingCycleUuid: payments.billingCycleUuid,
      amountMicros: payments.amountMicros,
      note: payments.note,
      paidAt: payments.paidAt,
    })
    .from(payments)
    .where(eq(payments.organizationUuid, organizationUuid))
    .orderBy(desc(payments.paidAt), desc(payments.paymentUuid));

export type GroupWithWorkspaces = {
  workspaceGroupUuid: string;
  name: string;
  prepaidMicros: bigint;
  /** Member workspaces' names, ascending. */
  workspaces: string[];
};

/** The organization's workspace groups by name, each with its workspaces' names. */
export async function listGroups(db: Db, organizationUuid: string): Promise<GroupWithWorkspaces[]> {
  const rows = await db
    .select({
      workspaceGroupUuid: workspaceGroups.workspaceGroupUuid,
      name: workspaceGroups.groupName,
      prepaidMicros: workspaceGroups.prepaidMicros,
      workspace: workspaces.name,
    })
    .from(workspaceGroups)
    .leftJoin(
      workspaceGroupMembers,
      eq(workspaceGroupMembers.workspaceGroupUuid, workspaceGroups.workspaceGroupUuid),
    )
    .leftJoin(workspaces, eq(workspaces.workspaceUuid, workspaceGroupMembers.workspaceUuid))
    .where(eq(workspaceGroups.organizationUuid, organizationUuid))
    .orderBy(asc(workspaceGroups.groupName), asc(workspaces.name));
  const groups = new Map<string, GroupWithWorkspaces>();
  for (const r of rows) {
    let g = groups.get(r.workspaceGroupUuid);
    if (!g) {
      g = {
        workspaceGroupUuid: r.workspaceGroupUuid,
        name: r.name,
        prepaidMicros: r.prepaidMicros,
        workspaces: [],
      };
      groups.set(r.workspaceGroupUuid, g);
    }
    if (r.workspace !== null) g.workspaces.push(r.workspace);
  }
  return [...groups.values()];
}
