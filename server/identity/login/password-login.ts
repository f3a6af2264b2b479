import { and, eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { account, user } from "../../db/schema";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { authErrorCode, toHeaders } from "../http";
import { authContext, pendingConfirmCookie } from "./cookies";
import { clientIp, enforce, LIMITS, normalizeEmail } from "./limits";
import { assertNotLocked, clearFailures, recordFailure } from "./lockout";
import type { LoginState } from "./state";

export type LoginOutcome = { state: LoginState; cookies: string[]; userId: string };

// The unmodified PropelAuth client maps a refused password on /login to `user_not_found`
// ("invalidCredentials"); any other code there makes its handler throw.
export const badCredentials = () =>
  new IdentityError("user_not_found", "Incorrect email or password.", undefined, 401);

/**
 * Email + password sign-in shared by the JSON API and the hosted page. Order matters: limits and
 * lock-out first (cheap, no hashing), then the password, then account state, so a disabled or
 * unconfirmed account is only revealed to someone who knows its password.
 */
export async function passwordLogin(
  ctx: IdentityContext,
  req: FastifyRequest,
  rawEmail: string,
  password: string,
): Promise<LoginOutcome> {
  const email = normalizeEmail(rawEmail);
  await enforce(ctx, `login:ip:${clientIp(req)}`, LIMITS.loginPerIp);
  await enforce(ctx, `login:email:${email}`, LIMITS.loginPerEmail);
  await assertNotLocked(ctx.db, email);

  const [u] = await ctx.db
    .select({ id: user.id, verified: user.emailVerified, banned: user.banned, hash: account.password })
    .from(user)
    .leftJoin(account, and(eq(account.userId, user.id), eq(account.providerId, "credential")))
    .where(eq(user.email, email));

  if (!u?.verified) {
    // Unconfirmed (or unknown): check the password ourselves; no session is made until the
    // email is confirmed (PropelAuth's ConfirmEmailRequired).
    const ac = await authContext(ctx);
    const ok = u?.hash ? await ac.password.verify({ hash: u.hash, password }) : false;
    if (!u || !ok) {
      await recordFailure(ctx.db, email);
      throw badCredentials();
    }
    if (u.banned) throw new IdentityError("account_disabled");
    await clearFailures(ctx.db, email);
    return { state: "ConfirmEmailRequired", cookies: [await pendingConfirmCookie(ctx, u.id)], userId: u.id };
  }

  try {
    const { headers, response } = await ctx.auth.api.signInEmail({
      body: { email, password, rememberMe: true },
      headers: toHeaders(req),
      returnHeaders: true,
    });
    await clearFailures(ctx.db, email);
    const cookies = headers.getSetCookie();
    const needsCode = "twoFactorRedirect" in (response as object);
    return { state: needsCode ? "TwoFactorRequired" : "Finished", cookies, userId: u.id };
  } catch (err) {
    const e = authErrorCode(err);
    if (e?.code === "BANNED_USER") throw new IdentityError("account_disabled");
    if (e && e.status < 500) {
      await recordFailure(ctx.db, email);
      throw badCredentials();
    }
    throw err;
  }
}
