import { createHash, randomBytes, randomUUID } from "node:crypto";
import { isIPv6 } from "node:net";
import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { loginFailure, user, verification } from "../../db/schema";
import type { Db } from "../../platform/database";
import type { RateLimits, RateRule } from "../../platform/rate-limits";
import type { IdentityContext } from "../context";
import { accountUnlockEmail } from "../email/templates";
import { IdentityError } from "../errors";
import { ACCOUNT_LOCK, LOCKOUT } from "./limits";

// Failed password sign-ins (better-auth has no lock-out for password sign-in), in two layers:
//
// - Per account and source (client address; an IPv6 client's /64): LOCKOUT.failures wrong
//   passwords from one source hold that source back for the rest of the window, whatever it sends.
//   Another source is not affected, so a storm from one place never locks the owner out.
// - Per account, from all sources together: ACCOUNT_LOCK.failures within its window (more than one
//   source can reach in that time) lock the account; its owner is emailed a single-use unlock link
//   (only its SHA-256 is stored), and a password reset lifts the lock too.
//
// Counts live in the shared rate-limit store (platform/rate-limits.ts); the account lock in
// identity.login_failure. Unknown emails are counted the same way, so the answers don't reveal
// which addresses have accounts.
//
// The store deletes one key at a time, so the per-source counts of an email carry its generation:
// proving the inbox starts the next one, and the older counts no longer apply (they expire on their
// own). The generation's window is far longer than LOCKOUT's, so when it lapses back to 0 every
// count of the old generation 0 has long expired.
const GENERATION: RateRule = { limit: 1_000_000, windowSeconds: 7 * 24 * 3600 };
const generationKey = (email: string) => `login:cleared:${email}`;
const generation = async (limits: RateLimits, email: string) =>
  (await limits.peek(generationKey(email), GENERATION)).count;
const sourceKey = (email: string, gen: number, source: string) => `login:fail:${email}|${gen}|${source}`;
const accountKey = (email: string) => `login:fail:${email}`;
const UNLOCK = "account-unlock:";
const LOCKOUT_RULE: RateRule = { limit: LOCKOUT.failures, windowSeconds: LOCKOUT.windowSeconds };
const ACCOUNT_RULE: RateRule = { limit: ACCOUNT_LOCK.failures, windowSeconds: ACCOUNT_LOCK.windowSeconds };
const sha256 = (token: string) => createHash("sha256").update(token).digest("hex");

/** The source a failure is charged to: the client address, or the /64 of an IPv6 client. */
export function loginSource(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head = "", tail = ""] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = ip.includes("::")
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

const minutesText = (seconds: number) => {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return `${m} minute${m === 1 ? "" : "s"}`;
};

async function sourceFailures(limits: RateLimits, email: string, source: string) {
  return limits.peek(sourceKey(email, await generation(limits, email), source), LOCKOUT_RULE);
}

/**
 * Refuses a sign-in for a locked account, or from a source that failed too often for it (when a
 * source is given): account_locked, before any password is checked.
 */
export async function assertNotLocked(db: Db, limits: RateLimits, email: string, source?: string) {
  const [row] = await db.select().from(loginFailure).where(eq(loginFailure.email, email));
  if (row?.lockedUntil && row.lockedUntil > new Date())
    throw new IdentityError(
      "account_locked",
      "This account is locked after too many failed sign-ins. We emailed its owner a link to unlock it; resetting the password unlocks it too.",
    );
  if (source === undefined) return;
  const s = await sourceFailures(limits, email, source);
  if (s.count >= LOCKOUT.failures)
    throw new IdentityError(
      "account_locked",
      `Too many failed sign-ins to this account from your network. Try again in ${minutesText(s.resetSeconds)}, or reset your password.`,
    );
}

/** Counts one wrong password against the source and the account; may lock the account. */
export async function recordFailure(ctx: IdentityContext, email: string, source: string) {
  const gen = await generation(ctx.limiter, email);
  await ctx.limiter.hit(sourceKey(email, gen, source), LOCKOUT_RULE);
  const all = await ctx.limiter.hit(accountKey(email), ACCOUNT_RULE);
  if (all.remaining > 0) return;
  const now = new Date();
  const until = new Date(now.getTime() + ACCOUNT_LOCK.lockSeconds * 1000);
  // Only the failure that sets a new lock sends the email (one per lock, however many instances).
  const locked = await ctx.db
    .insert(loginFailure)
    .values({ email, failures: ACCOUNT_LOCK.failures, lastFailureAt: now, lockedUntil: until })
    .onConflictDoUpdate({
      target: loginFailure.email,
      set: { failures: ACCOUNT_LOCK.failures, lastFailureAt: now, lockedUntil: until },
      setWhere: or(isNull(loginFailure.lockedUntil), lt(loginFailure.lockedUntil, now)),
    })
    .returning({ email: loginFailure.email });
  if (!locked.length) return;
  const [owner] = await ctx.db.select({ email: user.email }).from(user).where(eq(user.email, email));
  if (!owner) return;
  const token = randomBytes(32).toString("base64url");
  await ctx.db
    .delete(verification)
    .where(and(eq(verification.value, email), sql`${verification.identifier} like ${`${UNLOCK}%`}`));
  await ctx.db
    .insert(verification)
    .values({ id: randomUUID(), identifier: `${UNLOCK}${sha256(token)}`, value: email, expiresAt: until });
  await ctx.mailer.send(
    accountUnlockEmail(
      ctx.config.authPublicUrl,
      owner.email,
      token,
      Math.round(ACCOUNT_LOCK.lockSeconds / 60),
    ),
  );
}

/** A right password from this source: its count starts again (other sources' counts stay). */
export async function clearSourceFailures(limits: RateLimits, email: string, source: string) {
  await limits.reset(sourceKey(email, await generation(limits, email), source), LOCKOUT_RULE);
}

/** The owner proved the inbox (password reset, unlock link): every count and the lock go. */
export async function clearFailures(db: Db, limits: RateLimits, email: string) {
  await db.delete(loginFailure).where(eq(loginFailure.email, email));
  await limits.reset(accountKey(email), ACCOUNT_RULE);
  await limits.hit(generationKey(email), GENERATION);
}

/** Applies an emailed unlock link once: true when it was valid (and is now used up). */
export async function unlockAccount(db: Db, limits: RateLimits, token: string): Promise<boolean> {
  if (!token || token.length > 200) return false;
  const [row] = await db
    .delete(verification)
    .where(
      and(eq(verification.identifier, `${UNLOCK}${sha256(token)}`), gt(verification.expiresAt, new Date())),
    )
    .returning({ email: verification.value });
  if (!row) return false;
  await clearFailures(db, limits, row.email);
  return true;
}
