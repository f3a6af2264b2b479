/**
 * Operator actions on billing data (operator API, CLI and seed): resolving an organization, opening
 * and closing cycles, recording payments, and setting workspace groups. Every check happens before
 * the first write, and each action is one transaction, so a refused action writes nothing; given
 * an actor, the action's audit row is written in that transaction too (the seed passes none).
 */
import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import { z } from "zod";
import { formatUsdExact } from "../../../contract/money";
import { liveWorkspacesOf } from "../../db/live-workspaces";
import {
  billingCycles,
  organization,
  payments,
  workspaceGroupMembers,
  workspaceGroups,
  workspaces,
} from "../../db/schema";
import { type Actor, writeAuditBy } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { DomainError } from "../../platform/domain-error";
import { evaluateAllBudgets, lockBudgets } from "../budgets/eval";
import { noticeBudgetAlerts } from "../budgets/notify";
import { monthStart } from "../usage/filters";
import { type Cycle, listCycles } from "./cycles";

/**
 * A refused action, with a message meant for the person who asked, and what kind of refusal it is
 * (the operator API answers 400, 404 or 409 by it; the CLI exits 1 for all of them).
 */
export class BillingError extends DomainError {}

export type Org = { id: string; name: string };

/** The organization named by its uuid, slug or exact name (a name shared by two is refused). */
export async function resolveOrganization(db: Db, ref: string): Promise<Org> {
  // Uuids are stored in lower case; one typed in upper case names the same organization.
  const id = UUID.test(ref) ? ref.toLowerCase() : ref;
  const rows = await db
    .select({ id: organization.id, name: organization.name })
    .from(organization)
    .where(or(eq(organization.id, id), eq(organization.slug, ref), eq(organization.name, ref)))
    .limit(3);
  const exact = rows.find((r) => r.id === id);
  if (exact) return exact;
  if (rows.length > 1)
    throw new BillingError(`Several organizations are called "${ref}"; name it by its uuid.`, "invalid");
  const [org] = rows;
  if (!org) throw new BillingError(`No organization with uuid, slug or name "${ref}".`, "not_found");
  return org;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
export async function openCycle(
  db: Db,
  organizationUuid: string,
  startDate?: string,
  opts: { now?: Date; actor?: Actor } = {},
) {
  const now = opts.now ?? new Date();
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
    await writeAuditBy(tx, opts.actor, {
      organizationUuid,
      action: "billing_cycle.opened",
      target: { type: "billing_cycle", id: row.billingCycleUuid, label: start },
      after: { start_date: start, end_date: null },
    });
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
  opts: { endDate?: string; openNext?: boolean; now?: Date; actor?: Actor } = {},
): Promise<{ closed: Cycle; opened: Cycle | null }> {
  const end = opts.endDate ?? monthStart(opts.now ?? new Date());
  let alertsChanged = false;
  const result = await db.transaction(async (tx: Tx) => {
    await lockCycles(tx, organizationUuid);
    // Before the cycle row's trigger locks the configuration counter, as budget changes do.
    await lockBudgets(tx, organizationUuid);
    const open = (await listCycles(tx, organizationUuid)).find((c) => c.endDate === null);
    if (!open) throw new BillingError("The organization has no open cycle to close.", "conflict");
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
    await writeAuditBy(tx, opts.actor, {
      organizationUuid,
      action: "billing_cycle.closed",
      target: { type: "billing_cycle", id: open.billingCycleUuid, label: open.startDate },
      before: { start_date: open.startDate, end_date: null },
      after: {
        start_date: open.startDate,
        end_date: end,
        next_billing_cycle_uuid: opened?.billingCycleUuid ?? null,
      },
    });
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
  input: { amountMicros: bigint; billingCycleUuid?: string; note?: string | null; actor?: Actor },
) {
  if (input.amountMicros === 0n) throw new BillingError("A payment amount cannot be zero.", "invalid");
  const cycles = await listCycles(db, organizationUuid);
  const cycle = input.billingCycleUuid
    ? cycles.find((c) => c.billingCycleUuid === input.billingCycleUuid)
    : (cycles.find((c) => c.endDate === null) ?? cycles.at(-1));
  if (!cycle)
    throw input.billingCycleUuid
      ? new BillingError(`The organization has no billing cycle ${input.billingCycleUuid}.`, "not_found")
      : new BillingError("The organization has no billing cycle yet; open one first.", "conflict");
  const note = input.note ?? null;
  return db.transaction(async (tx: Tx) => {
    const [row] = await tx
      .insert(payments)
      .values({
        organizationUuid,
        billingCycleUuid: cycle.billingCycleUuid,
        amountMicros: input.amountMicros,
        note,
      })
      .returning({ paymentUuid: payments.paymentUuid, paidAt: payments.paidAt });
    if (!row) throw new Error("payment not inserted");
    await writeAuditBy(tx, input.actor, {
      organizationUuid,
      action: "payment.recorded",
      target: { type: "payment", id: row.paymentUuid, label: `$${formatUsdExact(input.amountMicros)}` },
      after: {
        amount_usd: formatUsdExact(input.amountMicros),
        billing_cycle_uuid: cycle.billingCycleUuid,
        note,
      },
    });
    return { paymentUuid: row.paymentUuid, paidAt: row.paidAt, cycle };
  });
}

/** The names of a group's workspaces, by name. */
const groupWorkspaceNames = async (tx: Tx, workspaceGroupUuid: string) =>
  (
    await tx
      .select({ name: workspaces.name })
      .from(workspaceGroupMembers)
      .innerJoin(workspaces, eq(workspaces.workspaceUuid, workspaceGroupMembers.workspaceUuid))
      .where(eq(workspaceGroupMembers.workspaceGroupUuid, workspaceGroupUuid))
      .orderBy(asc(workspaces.name))
  ).map((w) => w.name);

/**
 * Creates or updates a workspace group: the prepaid amount when given, and the member workspaces
 * (uuids or names of live workspaces of the organization) when given, replacing the old list.
 */
export async function setGroup(
  db: Db,
  organizationUuid: string,
  input: { name: string; prepaidMicros?: bigint; workspaces?: readonly string[]; actor?: Actor },
) {
  const name = input.name.trim();
  if (!name) throw new BillingError("A group needs a name.", "invalid");
  if (input.prepaidMicros !== undefined && input.prepaidMicros < 0n)
    throw new BillingError("A prepaid amount cannot be negative.", "invalid");
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
        "not_found",
      );
    members = rows;
  }
  const whereGroup = and(
    eq(workspaceGroups.organizationUuid, organizationUuid),
    eq(workspaceGroups.groupName, name),
  );
  return db.transaction(async (tx: Tx) => {
    const [old] = await tx.select().from(workspaceGroups).where(whereGroup);
    const before = old
      ? {
          prepaid_usd: formatUsdExact(old.prepaidMicros),
          workspaces: await groupWorkspaceNames(tx, old.workspaceGroupUuid),
        }
      : null;
    await tx
      .insert(workspaceGroups)
      .values({ organizationUuid, groupName: name, prepaidMicros: input.prepaidMicros ?? 0n })
      .onConflictDoNothing({ target: [workspaceGroups.organizationUuid, workspaceGroups.groupName] });
    if (input.prepaidMicros !== undefined)
      await tx.update(workspaceGroups).set({ prepaidMicros: input.prepaidMicros }).where(whereGroup);
    const [group] = await tx.select().from(workspaceGroups).where(whereGroup);
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
    const current = await groupWorkspaceNames(tx, group.workspaceGroupUuid);
    await writeAuditBy(tx, input.actor, {
      organizationUuid,
      action: "workspace_group.changed",
      target: { type: "workspace_group", id: group.workspaceGroupUuid, label: name },
      before,
      after: { prepaid_usd: formatUsdExact(group.prepaidMicros), workspaces: current },
    });
    return { group, workspaces: current };
  });
}
