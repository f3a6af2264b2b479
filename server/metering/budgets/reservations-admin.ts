/**
 * Open reservations as administrators see and release them beside the budgets: without this, a
 * member's run can hold an organization's whole free budget and an administrator finds it only by
 * knowing the run. Releasing one finishes its run as POST /v1/eval-runs/{id}/finish does (usage it
 * sends afterwards is still recorded, as spend beyond its estimate), under the organization's
 * budget lock so it never interleaves with an admission, and with its audit entry.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import { formatUsdExact } from "../../../contract/money";
import {
  MAX_LISTED_RESERVATIONS,
  type OpenReservation,
  type OpenReservationList,
  type ReleasedReservation,
} from "../../../contract/reservations";
import { evalRuns } from "../../db/schema";
import { type Actor, writeAudit } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { DomainError } from "../../platform/domain-error";
import { underBudgetLock } from "./eval";
import { heldRuns, holdOf, RESERVATION_IDLE_MS, runReservation } from "./reservations";

/** The organization's reservations held now, the largest first. */
export async function openReservations(
  db: Db | Tx,
  organizationUuid: string,
  now = new Date(),
): Promise<OpenReservationList> {
  const rows = await heldRuns(db, organizationUuid, now);
  const open = rows.map((r) => {
    const held = holdOf(BigInt(r.reserved), BigInt(r.used));
    const reservation: OpenReservation = {
      eval_run_uuid: r.run,
      workspace_uuid: r.ws,
      workspace_name: r.ws_name,
      eval_name: r.name,
      started_by: r.started_by,
      started_at: new Date(r.started_at).toISOString(),
      estimate: formatUsdExact(BigInt(r.reserved)),
      used: formatUsdExact(BigInt(r.used)),
      held: formatUsdExact(held),
      expires_at: new Date(new Date(r.last_activity).getTime() + RESERVATION_IDLE_MS).toISOString(),
    };
    return { held, reservation };
  });
  open.sort(
    (a, b) =>
      (a.held === b.held ? 0 : a.held > b.held ? -1 : 1) ||
      a.reservation.started_at.localeCompare(b.reservation.started_at) ||
      a.reservation.eval_run_uuid.localeCompare(b.reservation.eval_run_uuid),
  );
  return {
    reservations: open.slice(0, MAX_LISTED_RESERVATIONS).map((o) => o.reservation),
    total: open.length,
    held: formatUsdExact(open.reduce((sum, o) => sum + o.held, 0n)),
  };
}

/** Releases a run's held reservation: 404 for no such run here, 409 when it holds none. */
export async function releaseReservation(
  db: Db,
  organizationUuid: string,
  evalRunUuid: string,
  actor: Actor,
): Promise<ReleasedReservation> {
  return underBudgetLock(db, organizationUuid, async (tx) => {
    const [run] = await tx
      .select({
        name: evalRuns.name,
        workspaceUuid: evalRuns.workspaceUuid,
        startedBy: evalRuns.startedByEmail,
      })
      .from(evalRuns)
      .where(and(eq(evalRuns.organizationUuid, organizationUuid), eq(evalRuns.evalRunUuid, evalRunUuid)))
      .for("update");
    if (!run) throw new DomainError("Eval run not found.", "not_found");
    const before = await runReservation(tx, organizationUuid, evalRunUuid);
    if (!before)
      throw new DomainError("The run was started without an estimate: it holds no reservation.", "conflict");
    if (before.state !== "held")
      throw new DomainError(`The run's reservation is already released (${before.state}).`, "conflict");
    await tx
      .update(evalRuns)
      .set({ finishedAt: sql`now()` })
      .where(and(eq(evalRuns.evalRunUuid, evalRunUuid), isNull(evalRuns.finishedAt)));
    const after = await runReservation(tx, organizationUuid, evalRunUuid);
    if (!after) throw new Error("unreachable: the run's reservation was just read");
    await writeAudit(tx, {
      organizationUuid,
      actor,
      action: "eval_run.reservation_released",
      target: { type: "eval_run", id: evalRunUuid, label: run.name },
      before: {
        workspace_uuid: run.workspaceUuid,
        started_by: run.startedBy,
        estimate: before.estimate,
        used: before.used,
        held: before.held,
        expires_at: before.expires_at,
      },
      after: { state: after.state, held: after.held, finished_at: after.finished_at },
    });
    return { eval_run_uuid: evalRunUuid, released: before.held, reservation: after };
  });
}
