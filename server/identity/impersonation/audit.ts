import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import { impersonationAudit } from "../../db/schema";
import type { Db } from "../../platform/database";

/** Who impersonated whom and when: one row per impersonation, closed when it is stopped. */
export function createImpersonationAudit(db: Db) {
  return {
    async started(operatorUserId: string, targetUserId: string) {
      await db.insert(impersonationAudit).values({ id: randomUUID(), operatorUserId, targetUserId });
    },

    /** Closes the latest open row of this pair (a session that simply expired stays open). */
    async stopped(operatorUserId: string, targetUserId: string) {
      const [open] = await db
        .select({ id: impersonationAudit.id })
        .from(impersonationAudit)
        .where(
          and(
            eq(impersonationAudit.operatorUserId, operatorUserId),
            eq(impersonationAudit.targetUserId, targetUserId),
            isNull(impersonationAudit.endedAt),
          ),
        )
        .orderBy(desc(impersonationAudit.startedAt))
        .limit(1);
      if (open)
        await db
          .update(impersonationAudit)
          .set({ endedAt: new Date() })
          .where(eq(impersonationAudit.id, open.id));
    },
  };
}
