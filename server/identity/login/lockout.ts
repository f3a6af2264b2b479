import { eq, sql } from "drizzle-orm";
import { loginFailure } from "../../db/schema";
import type { Db } from "../../platform/database";
import { IdentityError } from "../errors";
import { LOCKOUT } from "./limits";

// Password lock-out per email (better-auth has none for password sign-in). Failures older than
// the window start a new count; reaching the threshold locks the email for one window. Unknown
// emails are counted too, so the answers don't reveal which addresses have accounts.

export async function assertNotLocked(db: Db, email: string) {
  const [row] = await db.select().from(loginFailure).where(eq(loginFailure.email, email));
  if (row?.lockedUntil && row.lockedUntil > new Date()) {
    const minutes = Math.max(1, Math.ceil((row.lockedUntil.getTime() - Date.now()) / 60000));
    throw new IdentityError(
      "account_locked",
      `This account is locked after too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or reset your password.`,
    );
  }
}

/** One statement: reset a stale count or add one, and set the lock when the threshold is met. */
export async function recordFailure(db: Db, email: string) {
  const now = new Date();
  const cutoff = new Date(now.getTime() - LOCKOUT.windowSeconds * 1000).toISOString();
  const lockUntil = new Date(now.getTime() + LOCKOUT.windowSeconds * 1000).toISOString();
  const next = sql`case when ${loginFailure.lastFailureAt} < ${cutoff}::timestamptz then 1 else ${loginFailure.failures} + 1 end`;
  await db
    .insert(loginFailure)
    .values({ email, failures: 1, lastFailureAt: now })
    .onConflictDoUpdate({
      target: loginFailure.email,
      set: {
        failures: next,
        lastFailureAt: now,
        lockedUntil: sql`case when ${next} >= ${LOCKOUT.failures} then ${lockUntil}::timestamptz else ${loginFailure.lockedUntil} end`,
      },
    });
}

export async function clearFailures(db: Db, email: string) {
  await db.delete(loginFailure).where(eq(loginFailure.email, email));
}
