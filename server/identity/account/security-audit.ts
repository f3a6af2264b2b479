import { eq } from "drizzle-orm";
import { member } from "../../db/schema";
import { type AuditAction, type Snapshot, writeAudits } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";

// Personal security events (password, two-factor, sessions) in the audit trail. They belong to a
// user, not to one organization: like a personal API key's, each is written to every organization
// the user is a member of, whose administrators answer for that user's access. A user in no
// organization leaves no entry: there is no organization log to read it in.

export type SecurityAction = Extract<
  AuditAction,
  | "user.password_changed"
  | "user.mfa_enabled"
  | "user.mfa_disabled"
  | "user.backup_codes_regenerated"
  | "user.sessions_revoked"
>;

/** Who acted on their own account; impersonatorId when a provider operator did it for them. */
export type SecurityActor = { id: string; email: string; impersonatorId?: string | null };

/** Writes one security event (details: what an auditor needs, never a secret) through `q`. */
export async function writeSecurityAudit(
  q: Db | Tx,
  actor: SecurityActor,
  action: SecurityAction,
  details: Snapshot | null = null,
) {
  const orgs = await q.select({ id: member.organizationId }).from(member).where(eq(member.userId, actor.id));
  await writeAudits(
    q,
    orgs.map((o) => ({
      organizationUuid: o.id,
      actor: {
        userId: actor.id,
        email: actor.email,
        source: "console" as const,
        impersonatorUserId: actor.impersonatorId ?? null,
      },
      action,
      target: { type: "user" as const, id: actor.id, label: actor.email },
      after: details,
    })),
  );
}
