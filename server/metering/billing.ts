/**
 * Operator actions on billing data (CLI and seed): resolving an organization, opening and closing
 * cycles, recording payments, and setting workspace groups. Every check happens before the first
 * write, and each action is one transaction, so a refused action writes nothing.
 */
import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import { z } from "zod";
import { liveWorkspacesOf } from "../db/live-workspaces";
import {
  billingCycles,
  organization,
  payments,
  workspaceGroupMembers,
  workspaceGroups,
  workspaces,
} from "../db/schema";
import type { Db, Tx } from "../platform/database";
import { evaluateAllBudgets, lockBudgets } from "./budgets-eval";
import { noticeBudgetAlerts } from "./budgets-notify";
import { type Cycle, listCycles } from "./cycles";
import { monthStart } from "./filters";

/** A refused action, with a message meant for the person who asked. */
export class BillingError extends Error {}

export type Org = { id: string; name: string };

/** The organization named by its uuid, slug or exact name (a name shared by two is refused). */
export async function resolveOrganization(db: Db, ref: string): Promise<Org> {
  const rows = await db
    .select({ id: organization.id, name: organization.name })
    .from(organization)
    .where(or(eq(organization.id, ref), eq(organization.slug, ref), eq(organization.name, ref)))
    .limit(3);
  const exact = rows.find((r) => r.id === ref);
  if (exact) return exact;
  if (rows.length > 1)
    throw new BillingError(`Several organizations are called "${ref}"; name it by its uuid.`);
  const [org] = rows;
  if (!org) throw new BillingError(`No organization with uuid, slug or name "${ref}".`);
  return org;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A "YYYY-MM-DD" that is a real calendar day, or null. */
export function parseDay(value: string): string | null {
  if (!DAY.test(value)) return null;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value ? value : null;
}

/** Cycle changes of one organization happen one at a time (the lock ends with the transaction). */
const lockCycles = (tx: Tx, organizationUuid: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`billing_cycles:${organizationUuid}`}))`);

/**
 * Opens a new current cycle from `startDate` (default: the 1st of this month, UTC). Refused while
 * another cycle is open, or when it would start before the last cycle ends.
 */
export async function openCycle(db: Db, organizationUuid: string, startDate?: string, now = new Date()) {
  const start = startDate ?? monthStart(now);
  let alertsChanged = false;
  const cycle = await db.transaction(async (tx: Tx) => {
    await lockCycles(tx, organizationUuid);
    // Before the cycle row's trigger locks the configuration counter, as budget changes do.
    await lockBudgets(tx, organizationUuid);
    const cycles = await listCycles(tx, organizationUuid);
    const open = cycles.find((c) => c.endDate === null);
    if (open) throw new BillingError(`A cycle is already open (since ${open.startDate}); close it first.`);
    const lastEnd = cycles.reduce<string | null>(
      (m, c) => (c.endDate && (!m || c.endDate > m) ? c.endDate : m),
      null,
    );
    if (lastEnd && start < lastEnd)
      throw new BillingError(`The new cycle must start on or after ${lastEnd}, where the last one ends.`);
    const [row] = await tx
      .insert(billingCycles)
      .values({ organizationUuid, startDate: start, endDate: null })
      .returning({ billingCycleUuid: billingCycles.billingCycleUuid });
    if (!row) throw new Error("cycle not inserted");
    // A new cycle resolves the open budget alerts of the last one.
    alertsChanged = (await evaluateAllBudgets(tx, organizationUuid, now)).length > 0;
    return {
      billingCycleUuid: row.billingCycleUuid,
      organizationUuid,
      startDate: start,
      endDate: null,
    } as Cycle;
  });
  if (alertsChanged) noticeBudgetAlerts(db, organizationUuid);
  return cycle;
}

/**
 * Closes the open cycle at `endDate` (exclusive, midnight UTC; default the 1st of this month) and,
 * unless `openNext` is false, opens the next one from that day, so usage always has a cycle.
 */
export async function closeCycle(
  db: Db,
  organizationUuid: string,
  opts: { endDate?: string; openNext?: boolean; now?: Date } = {},
): Promise<{ closed: Cycle; opened: Cycle | null }> {
  const end = opts.endDate ?? monthStart(opts.now ?? new Date());
  let alertsChanged = false;
  const result = await db.transaction(async (tx: Tx) => {
    await lockCycles(tx, organizationUuid);
    // Before the cycle row's trigger locks the configuration counter, as budget changes do.
    await lockBudgets(tx, organizationUuid);
    const open = (await listCycles(tx, organizationUuid)).find((c) => c.endDate === null);
    if (!open) throw new BillingError("The organization has no open cycle to close.");
    if (end <= open.startDate)
      throw new BillingError(
        `The open cycle starts on ${open.startDate}; its end date must be later (got ${end}).`,
      );
    await tx
      .update(billingCycles)
      .set({ endDate: end })
      .where(eq(billingCycles.billingCycleUuid, open.billingCycleUuid));
    let opened: Cycle | null = null;
    if (opts.openNext !== false) {
      const [row] = await tx
        .insert(billingCycles)
        .values({ organizationUuid, startDate: end, endDate: null })
        .returning({ billingCycleUuid: billingCycles.billingCycleUuid });
      if (row)
        opened = { billingCycleUuid: row.billingCycleUuid, organizationUuid, startDate: end, endDate: null };
    }
    // The next cycle resolves the open budget alerts of the closed one.
    alertsChanged = (await evaluateAllBudgets(tx, organizationUuid, opts.now)).length > 0;
    return { closed: { ...open, endDate: end }, opened };
  });
  if (alertsChanged) noticeBudgetAlerts(db, organizationUuid);
  return result;
}

/** Records a payment on a cycle of the organization (default: the open one). */
export async function recordPayment(
  db: Db,
  organizationUuid: string,
  input: { amountMicros: bigint; billingCycleUuid?: string; note?: string | null },
) {
  if (input.amountMicros === 0n) throw new BillingError("A payment amount cannot be zero.");
  const cycles = await listCycles(db, organizationUuid);
  const cycle = input.billingCycleUuid
    ? cycles.find((c) => c.billingCycleUuid === input.billingCycleUuid)
    : (cycles.find((c) => c.endDate === null) ?? cycles.at(-1));
  if (!cycle)
    throw new BillingError(
      input.billingCycleUuid
        ? `The organization has no billing cycle ${input.billingCycleUuid}.`
        : "The organization has no billing cycle yet; open one first.",
    );
  const [row] = await db
    .insert(payments)
    .values({
      organizationUuid,
      billingCycleUuid: cycle.billingCycleUuid,
      amountMicros: input.amountMicros,
      note: input.note ?? null,
    })
    .returning({ paymentUuid: payments.paymentUuid });
  if (!row) throw new Error("payment not inserted");
  return { paymentUuid: row.paymentUuid, cycle };
}

/**
 * Creates or updates a workspace group: the prepaid amount when given, and the member workspaces
 * (uuids or names of live workspaces of the organization) when given, replacing the old list.
 */
export async function setGroup(
  db: Db,
  organizationUuid: string,
  input: { name: string; prepaidMicros?: bigint; workspaces?: readonly string[] },
) {
  const name = input.name.trim();
  if (!name) throw new BillingError("A group needs a name.");
  if (input.prepaidMicros !== undefined && input.prepaidMicros < 0n)
    throw new BillingError("A prepaid amount cannot be negative.");
  let members: { workspaceUuid: string; name: string }[] | undefined;
  if (input.workspaces) {
    const refs = [...new Set(input.workspaces.map((w) => w.trim()).filter(Boolean))];
    const uuids = refs.filter((r) => z.uuid().safeParse(r).success);
    const rows = refs.length
      ? await db
          .select({ workspaceUuid: workspaces.workspaceUuid, name: workspaces.name })
          .from(workspaces)
          .where(
            and(
              liveWorkspacesOf(organizationUuid),
              or(
                inArray(workspaces.name, refs),
                uuids.length ? inArray(workspaces.workspaceUuid, uuids) : undefined,
              ),
            ),
          )
          .orderBy(asc(workspaces.name))
      : [];
    const missing = refs.filter((r) => !rows.some((w) => w.workspaceUuid === r || w.name === r));
    if (missing.length)
      throw new BillingError(
        `No live workspace ${missing.map((m) => `"${m}"`).join(", ")} in the organization.`,
      );
    members = rows;
  }
  return db.transaction(async (tx: Tx) => {
    await tx
      .insert(workspaceGroups)
      .values({ organizationUuid, groupName: name, prepaidMicros: input.prepaidMicros ?? 0n })
      .onConflictDoNothing({ target: [workspaceGroups.organizationUuid, workspaceGroups.groupName] });
    if (input.prepaidMicros !== undefined)
      await tx
        .update(workspaceGroups)
        .set({ prepaidMicros: input.prepaidMicros })
        .where(
          and(eq(workspaceGroups.organizationUuid, organizationUuid), eq(workspaceGroups.groupName, name)),
        );
    const [group] = await tx
      .select()
      .from(workspaceGroups)
      .where(
        and(eq(workspaceGroups.organizationUuid, organizationUuid), eq(workspaceGroups.groupName, name)),
      );
    if (!group) throw new Error("group not stored");
    if (members) {
      await tx
        .delete(workspaceGroupMembers)
        .where(eq(workspaceGroupMembers.workspaceGroupUuid, group.workspaceGroupUuid));
      if (members.length)
        await tx.insert(workspaceGroupMembers).values(
          members.map((m) => ({
            workspaceGroupUuid: group.workspaceGroupUuid,
            workspaceUuid: m.workspaceUuid,
          })),
        );
    }
    const current = await tx
      .select({ name: workspaces.name })
      .from(workspaceGroupMembers)
      .innerJoin(workspaces, eq(workspaces.workspaceUuid, workspaceGroupMembers.workspaceUuid))
      .where(eq(workspaceGroupMembers.workspaceGroupUuid, group.workspaceGroupUuid))
      .orderBy(asc(workspaces.name));
    return { group, workspaces: current.map((w) => w.name) };
  });
}
