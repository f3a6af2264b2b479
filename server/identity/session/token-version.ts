import { eq, inArray, sql } from "drizzle-orm";
import { user } from "../../db/schema/index";
import type { Db } from "../../platform/database";
import { announceTokenRevocation, TOKEN_VERSION_CHANNEL } from "../../platform/token-revocation";
import type { Queryable } from "../orgs/access";

// Access tokens carry `tv`, the user's token_version when they were minted. Every change that
// takes rights away (logout, password reset or change, role change, removal from an organization,
// organization or account deletion, disabling) bumps the version, and the product API refuses
// tokens minted before it (api/token-versions.ts), within seconds instead of at expiry.

/**
 * Bumps the users' token version and queues a pg_notify per user. Inside a transaction both take
 * effect at its commit; call `announceTokenRevocation` after the commit (or use revokeAccessTokens).
 */
export async function bumpTokenVersions(q: Queryable, userIds: readonly string[]): Promise<void> {
  const ids = [...new Set(userIds)];
  if (!ids.length) return;
  await q
    .update(user)
    .set({ tokenVersion: sql`${user.tokenVersion} + 1` })
    .where(inArray(user.id, ids));
  await notifyTokenVersions(q, ids);
}

/** Only the notifications: for users whose row is gone (a deleted account) or already bumped. */
async function notifyTokenVersions(q: Queryable, userIds: readonly string[]): Promise<void> {
  const ids = [...new Set(userIds)];
  if (!ids.length) return;
  const list = sql.join(
    ids.map((id) => sql`(${id})`),
    sql`, `,
  );
  await q.execute(sql`select pg_notify(${TOKEN_VERSION_CHANNEL}, v.id) from (values ${list}) as v(id)`);
}

/** Ends the users' current access tokens now (one statement of its own, then this process hears it). */
export async function revokeAccessTokens(db: Db, userIds: readonly string[]): Promise<void> {
  await db.transaction((tx) => bumpTokenVersions(tx, userIds));
  announceTokenRevocation(db, userIds);
}

/** Tells API caches that these users (deleted meanwhile) are gone. */
export async function announceDeletedUsers(db: Db, userIds: readonly string[]): Promise<void> {
  await notifyTokenVersions(db, userIds);
  announceTokenRevocation(db, userIds);
}

/** The user's current token version; null for an unknown or disabled user. */
export async function currentTokenVersion(db: Db, userId: string): Promise<number | null> {
  const [u] = await db
    .select({ v: user.tokenVersion, banned: user.banned })
    .from(user)
    .where(eq(user.id, userId))
    .limit(1);
  return u && !u.banned ? u.v : null;
}
