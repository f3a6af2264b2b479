import { fromNodeHeaders } from "better-auth/node";
import { eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { user } from "../../db/schema";
import type { Db } from "../../platform/database";
import type { RateLimits } from "../../platform/rate-limits";
import { writeSecurityAudit } from "../account/security-audit";
import { twoFactorChallengeCookies } from "../better-auth/adapter";
import { endStartedSession } from "../better-auth/started-session";
import type { IdentityContext } from "../context";
import { callbackCarrying } from "../email/templates";
import { IdentityError } from "../errors";
import { authErrorCode } from "../http";
import { revokeAccessTokens } from "../session/token-version";
import { clientIp, enforce, LIMITS, normalizeEmail } from "./limits";
import { assertNotLocked, clearFailures } from "./lockout";

const FORGOT_MESSAGE = "If an account exists for this email, we sent a link to reset its password.";

/** Links that open the user's inbox filtered to our email (PropelAuth's "sniper links"). */
function sniperLinks(from: string) {
  const q = encodeURIComponent(`from:${from}`);
  return {
    gmail: `https://mail.google.com/mail/u/0/#search/${q}`,
    outlook: `https://outlook.live.com/mail/0/inbox`,
    yahoo: `https://mail.yahoo.com/d/search/keyword=${encodeURIComponent(from)}`,
  };
}

/** Sends a reset link when the account exists; the answer is the same either way. */
export async function forgotPassword(ctx: IdentityContext, req: FastifyRequest, rawEmail: string) {
  const email = normalizeEmail(rawEmail);
  await enforce(ctx, `email:ip:${clientIp(req)}`, LIMITS.emailPerIp);
  await enforce(ctx, `reset:email:${email}`, LIMITS.emailPerAddress);
  await ctx.auth.api.requestPasswordReset({ body: { email }, headers: fromNodeHeaders(req.headers) });
  const from = ctx.config.emailFrom.replace(/^.*<([^>]+)>.*$/, "$1");
  return { message: FORGOT_MESSAGE, sniper_links: sniperLinks(from) };
}

/**
 * Sets the new password from a reset link. better-auth ends every session of the user (a reset
 * usually means the password leaked) and then calls afterPasswordReset.
 */
export async function resetPassword(ctx: IdentityContext, token: string, newPassword: string) {
  try {
    await ctx.auth.api.resetPassword({ body: { token, newPassword } });
  } catch (err) {
    const e = authErrorCode(err);
    if (e && e.status < 500)
      throw new IdentityError("bad_request", "This reset link is invalid or has expired.");
    throw err;
  }
}

/**
 * After a password reset (better-auth's onPasswordReset): the access tokens of the ended
 * sessions end too, and the lock-out is lifted because the user proved the inbox.
 */
export async function afterPasswordReset(db: Db, limits: RateLimits, u: { id: string; email: string }) {
  await revokeAccessTokens(db, [u.id]);
  await clearFailures(db, limits, u.email);
  await db.transaction(async (tx) => {
    await writeSecurityAudit(tx, u, "user.password_changed", { how: "reset" });
    await writeSecurityAudit(tx, u, "user.sessions_revoked", { sessions: "all", reason: "password reset" });
  });
}

/** Mails a one-time sign-in link; unknown emails get one only when `create` is asked for. */
export async function passwordlessLogin(
  ctx: IdentityContext,
  req: FastifyRequest,
  rawEmail: string,
  create: boolean,
  rt?: string,
) {
  const email = normalizeEmail(rawEmail);
  await enforce(ctx, `email:ip:${clientIp(req)}`, LIMITS.emailPerIp);
  await enforce(ctx, `magic:email:${email}`, LIMITS.emailPerAddress);
  await assertNotLocked(ctx.db, ctx.limiter, email);
  const [u] = await ctx.db.select({ banned: user.banned }).from(user).where(eq(user.email, email));
  if (u?.banned) throw new IdentityError("account_disabled");
  // Same answer for unknown addresses: whether an account exists is not revealed.
  if (!u && !create) return;
  await ctx.auth.api.signInMagicLink({
    body: { email, callbackURL: callbackCarrying(rt) },
    headers: fromNodeHeaders(req.headers),
  });
}

/**
 * Uses a magic link. better-auth signs the user in directly, skipping the second factor, so for
 * users with MFA the session is dropped and the second-factor step is opened instead.
 */
export async function redeemMagicLink(ctx: IdentityContext, req: FastifyRequest, token: string) {
  let result: { headers: Headers; response: unknown };
  try {
    result = await ctx.auth.api.magicLinkVerify({
      query: { token },
      headers: fromNodeHeaders(req.headers),
      returnHeaders: true,
    });
  } catch (err) {
    const e = authErrorCode(err);
    if (e?.code === "BANNED_USER") throw new IdentityError("account_disabled");
    if (e && e.status < 500)
      throw new IdentityError("bad_request", "This sign-in link is invalid or has expired.");
    throw err;
  }
  const body = result.response as { token?: string; user?: { id: string; twoFactorEnabled?: boolean } };
  if (!body?.token || !body.user)
    throw new IdentityError("bad_request", "This sign-in link is invalid or has expired.");
  if (body.user.twoFactorEnabled) {
    await endStartedSession(ctx.auth, result.headers.getSetCookie());
    return { needsCode: true, cookies: await twoFactorChallengeCookies(ctx.auth, body.user.id) };
  }
  return { needsCode: false, cookies: result.headers.getSetCookie() };
}
