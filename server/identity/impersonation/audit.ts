import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import { impersonationAudit, member } from "../../db/schema";
import { type AuditAction, writeAudits } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";

type Person = { id: string; email: string };

/**
 * The organizations' audit rows of an impersonation: one in each organization of the impersonated
 * user, whose administrators should know an operator acted as their member. A user in no
 * organization gets one platform row (no organization).
 */
async function organizationAudits(tx: Tx, action: AuditAction, operator: Person, target: Person) {
  const orgs = await tx
    .select({ orgId: member.organizationId })
    .from(member)
    .where(eq(member.userId, target.id));
  const orgIds: (string | null)[] = orgs.length ? orgs.map((o) => o.orgId) : [null];
  await writeAudits(
    tx,
    orgIds.map((organizationUuid) => ({
      organizationUuid,
      actor: { userId: operator.id, email: operator.email, source: "console" },
      action,
      target: { type: "user", id: target.id, label: target.email },
    })),
  );
}

/** Who impersonated whom and when: one row per impersonation, closed when it is stopped. */
export function createImpersonationAudit(db: Db) {
  return {
    async started(operator: Person, target: Person) {
      await db.transaction(async (tx) => {
        await tx
          .insert(impersonationAudit)
          .values({ id: randomUUID(), operatorUserId: operator.id, targetUserId: target.id });
        await organizationAudits(tx, "impersonation.started", operator, target);
      });
    },

    /** Closes the latest open row of this pair (a session that simply expired stays open). */
    async stopped(operator: Person, target: Person) {
      await db.transaction(async (tx) => {
        const [open] = await tx
          .select({ id: impersonationAudit.id })
          .from(impersonationAudit)
          .where(
            and(
              eq(impersonationAudit.operatorUserId, operator.id),
              eq(impersonationAudit.targetUserId, target.id),
              isNull(impersonationAudit.endedAt),
            ),
          )
          .orderBy(desc(impersonationAudit.startedAt))
          .limit(1);
        if (open)
          await tx
            .update(impersonationAudit)
            .set({ endedAt: new Date() })
            .where(eq(impersonationAudit.id, open.id));
        await organizationAudits(tx, "impersonation.ended", operator, target);
      });
    },
  };
}
