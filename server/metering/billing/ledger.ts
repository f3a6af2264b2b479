/**
 * What operators read of an organization's billing set-up: its payments and its workspace groups.
 * Plain reads of the tables the billing actions (billing.ts) write; the cycles with their totals
 * are the customers' bill's (cycles.ts).
 */
import { asc, desc, eq } from "drizzle-orm";
import { payments, workspaceGroupMembers, workspaceGroups, workspaces } from "../../db/schema";
import type { Db } from "../../platform/database";

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
