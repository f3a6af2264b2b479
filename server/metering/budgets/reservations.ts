/**
 * Reservations (contract/reservations.ts): a run started with an estimate holds `estimate − used`
 * (never below 0) against the hard limits covering its workspace until it finishes or sends no
 * usage for RESERVATION_IDLE_MINUTES. Expiry is read, not written: a hold counts only while its
 * run's last activity (its start or its latest event) is recent, so a crashed eval service's
 * reservation frees itself with no job to run.
 *
 * Admission takes the organization's budget lock (the one alert evaluation takes), so two starts
 * are judged one after the other: the second sees the first's hold and can never be admitted on
 * the same last dollars. Usage ingested meanwhile is never refused (usage is always recorded); it
 * moves a run's spend from its hold to `used`, leaving their sum as it was.
 */
import { sql } from "drizzle-orm";
import { formatUsdExact } from "../../../contract/money";
import { RESERVATION_IDLE_MINUTES, type Reservation } from "../../../contract/reservations";
import type { Db, Tx } from "../../platform/database";

export const RESERVATION_IDLE_MS = RESERVATION_IDLE_MINUTES * 60_000;

type Rows<T> = { rows: T[] };

/** What a run holds: its estimate less what it used, never below 0. */
export const holdOf = (reserved: bigint, used: bigint) => (reserved > used ? reserved - used : 0n);

export type Holds = { total: bigint; byWorkspace: Map<string, bigint> };

/**
 * The run's usage since it started, read from the per-run rollup from the day it started (its
 * primary key leads with the organization and the day, so only those days' rows are read).
 */
export const usedSql = (org: string) => sql`
  left join lateral (
    select sum(d.cost_micros_sum) as used, max(d.last_at) as last_at
      from usage_run_daily d
     where d.organization_uuid = ${org} and d.day >= (r.started_at at time zone 'UTC')::date
       and d.eval_run_uuid = r.eval_run_uuid) u on true`;

/** A run's last activity, over usedSql's join: its start or its latest event. */
const lastActivitySql = sql`greatest(r.started_at, coalesce(u.last_at, r.started_at))`;

/**
 * The organization's runs (`r`, joined by usedSql) that hold a reservation now: started with an
 * estimate, not finished, and active within RESERVATION_IDLE_MS of `now`.
 */
function holdingNowSql(organizationUuid: string, now: Date) {
  const since = new Date(now.getTime() - RESERVATION_IDLE_MS).toISOString();
  return sql`r.organization_uuid = ${organizationUuid}
       and r.reserved_micros is not null and r.finished_at is null
       and ${lastActivitySql} > ${since}::timestamptz`;
}

/** A run holding a reservation now, as heldRuns reads it (micro-dollars as text). */
export type HeldRun = {
  run: string;
  ws: string;
  ws_name: string | null;
  name: string | null;
  started_by: string | null;
  started_at: Date | string;
  reserved: string;
  used: string;
  last_activity: Date | string;
};

/** The organization's runs holding a reservation now, with their workspace's name. */
export async function heldRuns(db: Db | Tx, organizationUuid: string, now: Date): Promise<HeldRun[]> {
  const result = (await db.execute(sql`
    select r.eval_run_uuid as run, r.workspace_uuid::text as ws, w.name as ws_name, r.name,
           r.started_by_email as started_by, r.started_at, r.reserved_micros::text as reserved,
           coalesce(u.used, 0)::text as used, ${lastActivitySql} as last_activity
      from eval_runs r ${usedSql(organizationUuid)}
      left join workspaces w on w.workspace_uuid = r.workspace_uuid
     where ${holdingNowSql(organizationUuid, now)}`)) as unknown as Rows<HeldRun>;
  return result.rows;
}

/** The reservations held now in the organization, in total and per workspace. */
export async function heldReservations(
  db: Db | Tx,
  organizationUuid: string,
  now = new Date(),
): Promise<Holds> {
  const rows = await heldRuns(db, organizationUuid, now);
  const byWorkspace = new Map<string, bigint>();
  let total = 0n;
  for (const r of rows) {
    const held = holdOf(BigInt(r.reserved), BigInt(r.used));
    total += held;
    byWorkspace.set(r.ws, (byWorkspace.get(r.ws) ?? 0n) + held);
  }
  return { total, byWorkspace };
}

/** A budget's holds: the organization's (all workspaces) or one workspace's. */
export const heldOf = (holds: Holds, workspaceUuid: string | null) =>
  workspaceUuid === null ? holds.total : (holds.byWorkspace.get(workspaceUuid) ?? 0n);

/** One run's reservation as the API shows it; null when the run was started without an estimate. */
export async function runReservation(
  db: Db | Tx,
  organizationUuid: string,
  evalRunUuid: string,
  now = new Date(),
): Promise<Reservation | null> {
  const result = (await db.execute(sql`
    select r.reserved_micros::text as reserved, coalesce(u.used, 0)::text as used, r.finished_at,
           ${lastActivitySql} as last_activity
      from eval_runs r ${usedSql(organizationUuid)}
     where r.organization_uuid = ${organizationUuid} and r.eval_run_uuid = ${evalRunUuid}
       and r.reserved_micros is not null`)) as unknown as Rows<{
    reserved: string;
    used: string;
    finished_at: Date | string | null;
    last_activity: Date | string;
  }>;
  const row = result.rows[0];
  if (!row) return null;
  return reservationOf({
    reserved: BigInt(row.reserved),
    used: BigInt(row.used),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
    lastActivity: new Date(row.last_activity),
    now,
  });
}

/** Where a reservation stands (pure). */
export function reservationOf(r: {
  reserved: bigint;
  used: bigint;
  finishedAt: Date | null;
  lastActivity: Date;
  now: Date;
}): Reservation {
  const expiresAt = new Date(r.lastActivity.getTime() + RESERVATION_IDLE_MS);
  const state = r.finishedAt ? "finished" : expiresAt <= r.now ? "expired" : "held";
  return {
    estimate: formatUsdExact(r.reserved),
    used: formatUsdExact(r.used),
    held: formatUsdExact(state === "held" ? holdOf(r.reserved, r.used) : 0n),
    beyond_estimate: formatUsdExact(r.used > r.reserved ? r.used - r.reserved : 0n),
    state,
    expires_at: state === "held" ? expiresAt.toISOString() : null,
    finished_at: r.finishedAt ? r.finishedAt.toISOString() : null,
  };
}
