import { randomBytes } from "node:crypto";
import { fromNodeHeaders } from "better-auth/node";
import { and, eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { account, user } from "../../db/schema";
import { confirmationPendingCookies, hashPassword, verifyPassword } from "../better-auth/adapter";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { authErrorCode } from "../http";
import { clientIp, enforce, LIMITS, normalizeEmail } from "./limits";
import { assertNotLocked, clearSourceFailures, loginSource, recordFailure } from "./lockout";
import type { LoginState } from "./state";

export type LoginOutcome = { state: LoginState; cookies: string[]; userId: string };

// The unmodified PropelAuth client maps a refused password on /login to `user_not_found`
// ("invalidCredentials"); any other code there makes its handler throw.
const badCredentials = () =>
  new IdentityError("user_not_found", "Incorrect email or password.", undefined, 401);

const dummyHashes = new WeakMap<IdentityContext, Promise<string>>();

/**
 * A scrypt hash (better-auth's own hasher and parameters) of a random password, made once per
 * service: checking a password of an unknown email against it costs what a real check costs, so
 * the answer's timing does not tell which emails have accounts. Called at start-up.
 */
export function dummyPasswordHash(ctx: IdentityContext): Promise<string> {
  let hash = dummyHashes.get(ctx);
  if (!hash) {
    hash = hashPassword(ctx.auth, randomBytes(18).toString("base64url"));
    dummyHashes.set(ctx, hash);
  }
  return hash;
}

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
  const source = loginSource(clientIp(req));
  await enforce(ctx, `login:ip:${clientIp(req)}`, LIMITS.loginPerIp);
  await assertNotLocked(ctx.db, ctx.limiter, email, source);

  const [u] = await ctx.db
    .select({ id: user.id, verified: user.emailVerified, banned: user.banned, hash: account.password })
    .from(user)
    .leftJoin(account, and(eq(account.userId, user.id), eq(account.providerId, "credential")))
    .where(eq(user.email, email));

  if (!u?.verified) {
    // Unconfirmed (or unknown): check the password ourselves; no session is made until the
    // email is confirmed (PropelAuth's ConfirmEmailRequired). An unknown email (or one without a
    // password) is checked against the dummy hash, so it takes as long as a real account.
    const checked = await verifyPassword(ctx.auth, u?.hash ?? (await dummyPasswordHash(ctx)), password);
    const ok = Boolean(u?.hash) && checked;
    if (!u || !ok) {
      await recordFailure(ctx, email, source);
      throw badCredentials();
    }
    if (u.banned) throw new IdentityError("account_disabled");
    await clearSourceFailures(ctx.limiter, email, source);
    return {
      state: "ConfirmEmailRequired",
      cookies: await confirmationPendingCookies(ctx.auth, u.id),
      userId: u.id,
    };
  }

  try {
    const { headers, response } = await ctx.auth.api.signInEmail({
      body: { email, password, rememberMe: true },
      headers: fromNodeHeaders(req.headers),
      returnHeaders: true,
    });
    await clearSourceFailures(ctx.limiter, email, source);
    const cookies = headers.getSetCookie();
    const needsCode = "twoFactorRedirect" in (response as object);
    return { state: needsCode ? "TwoFactorRequired" : "Finished", cookies, userId: u.id };
  } catch (err) {
    const e = authErrorCode(err);
    if (e?.code === "BANNED_USER") throw new IdentityError("account_disabled");
    if (e && e.status < 500) {
      await recordFailure(ctx, email, source);
      throw badCredentials();
    }
    throw err;
  }
}
