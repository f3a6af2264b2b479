import { sql } from "drizzle-orm";
import type { AuditAction, AuditSource, AuditTargetType } from "../../contract/audit-log";
import { auditLog } from "../db/schema";
import type { Db, Tx } from "./database";

export type { AuditAction, AuditSource, AuditTargetType } from "../../contract/audit-log";

/**
 * Who made a change: a signed-in user (session or bearer token), an API key's owner, or the
 * command line (no user). impersonatorUserId is the provider operator behind an impersonation
 * session, when the user's session was one.
 */
export type Actor = {
  userId: string | null;
  email: string | null;
  source: AuditSource;
  impersonatorUserId?: string | null;
};

/** The command line as an actor: no user, source cli. */
export const CLI_ACTOR: Actor = { userId: null, email: null, source: "cli" };

export type Snapshot = Record<string, unknown>;

export type AuditEntryInput = {
  /** null for a platform-wide target (an ingestion key for every organization). */
  organizationUuid: string | null;
  actor: Actor;
  action: AuditAction;
  target: { type: AuditTargetType; id: string; label?: string | null };
  before?: Snapshot | null;
  after?: Snapshot | null;
};

/** Field names that never reach the audit log, whatever a caller passes in a snapshot. */
const SECRET_FIELD = /token|secret|password|hash|private|credential|api_?key_?material|certificate|cookie/i;
/** Values shaped like our credentials (API keys, ingestion keys) or a bare SHA-256 digest. */
const SECRET_VALUE = /^(eck_|eci_)[A-Za-z0-9_-]{20,}$|^[0-9a-f]{64}$/;

/**
 * A snapshot with every secret left out: fields named like one, and values shaped like our tokens
 * or a digest. A belt to the callers' braces (they pass only the fields an auditor needs), so a
 * future field cannot leak key material into a table every administrator reads.
 */
export function scrubSnapshot(value: Snapshot | null | undefined): Snapshot | null {
  if (!value) return null;
  const clean = (v: unknown): unknown => {
    if (typeof v === "string") return SECRET_VALUE.test(v) ? "[redacted]" : v;
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === "object" && !(v instanceof Date)) {
      const out: Snapshot = {};
      for (const [k, inner] of Object.entries(v)) if (!SECRET_FIELD.test(k)) out[k] = clean(inner);
      return out;
    }
    return v instanceof Date ? v.toISOString() : v;
  };
  return clean(value) as Snapshot;
}

/**
 * Writes one audit row. Call it inside the transaction of the change it records, so a change that
 * rolls back leaves no row and no change is committed without one. Here, in platform/, because the
 * product API, metering and the identity service all write it.
 */
export async function writeAudit(tx: Tx | Db, entry: AuditEntryInput) {
  await writeAudits(tx, [entry]);
}

/**
 * The audit row of a change made on someone's behalf, as writeAudit; none without an actor (the
 * demo seed and the server's own work change data with no one to name).
 */
export async function writeAuditBy(
  tx: Tx | Db,
  actor: Actor | null | undefined,
  entry: Omit<AuditEntryInput, "actor">,
) {
  if (actor) await writeAudit(tx, { ...entry, actor });
}

/** Several audit rows in one statement (one action seen by several organizations). */
export async function writeAudits(tx: Tx | Db, entries: readonly AuditEntryInput[]) {
  if (!entries.length) return;
  await tx.insert(auditLog).values(
    entries.map((e) => ({
      organizationUuid: e.organizationUuid,
      actorUserId: e.actor.userId,
      actorEmail: e.actor.email,
      impersonatorUserId: e.actor.impersonatorUserId ?? null,
      source: e.actor.source,
      action: e.action,
      targetType: e.target.type,
      targetId: e.target.id,
      targetLabel: e.target.label ?? null,
      before: scrubSnapshot(e.before),
      after: scrubSnapshot(e.after),
    })),
  );
}

/**
 * Deletes audit rows older than `retentionDays` through the database's purge function, the only
 * delete the table's trigger lets through; answers how many went. With an actor (an operator's
 * purge, not the server's daily one) the purge is itself recorded, in the same transaction.
 */
export async function purgeAuditLog(db: Db, retentionDays: number, actor?: Actor): Promise<number> {
  if (!Number.isInteger(retentionDays) || retentionDays < 1)
    throw new Error("The audit retention must be a whole number of days, at least 1.");
  return db.transaction(async (tx: Tx) => {
    const result = await tx.execute(sql`select audit_log_purge(${retentionDays}) as n`);
    const purged = Number((result as unknown as { rows: { n: number | string }[] }).rows[0]?.n ?? 0);
    await writeAuditBy(tx, actor, {
      organizationUuid: null,
      action: "audit_log.purged",
      target: { type: "audit_log", id: "audit_log", label: `older than ${retentionDays} days` },
      after: { retention_days: retentionDays, purged },
    });
    return purged;
  });
}
