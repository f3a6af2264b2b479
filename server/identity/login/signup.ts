import { randomUUID } from "node:crypto";
import { fromNodeHeaders } from "better-auth/node";
import { eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { decodeJwt } from "jose";
import { user } from "../../db/schema";
import { isUniqueViolation } from "../../platform/database";
import {
  confirmationPendingCookies,
  confirmationPendingUser,
  hashPassword,
  sessionCookies,
  twoFactorChallengeCookies,
} from "../better-auth/adapter";
import { endStartedSession } from "../better-auth/started-session";
import type { IdentityContext } from "../context";
import { callbackCarrying, signupAttemptNotice } from "../email/templates";
import { IdentityError } from "../errors";
import { authErrorCode } from "../http";
import { clientIp, enforce, LIMITS, normalizeEmail } from "./limits";

export type SignupInput = {
  email: string;
  password: string;
  first_name?: string | undefined;
  last_name?: string | undefined;
  username?: string | undefined;
  /** The hosted page's return target, carried by the confirmation link. */
  rt?: string | undefined;
};

/**
 * Sign-up with an address that already has an account: the same work and the same answer as a
 * new one (a password hash, an email, the "check your email" state for a user id that exists
 * nowhere), so the answer does not tell whether the address is registered. The owner is emailed
 * a notice instead of a confirmation link (at most LIMITS.emailPerAddress of them per window).
 */
async function signUpTaken(ctx: IdentityContext, email: string, password: string) {
  await hashPassword(ctx.auth, password);
  const decoyId = randomUUID();
  await ctx.limiter.hit(`confirm:user:${decoyId}`, LIMITS.resendConfirmation);
  const notice = LIMITS.emailPerAddress;
  if ((await ctx.limiter.hit(`signup-notice:${email}`, notice)).allowed)
    await ctx.mailer.send(signupAttemptNotice(ctx.config.authPublicUrl, email));
  return { userId: decoyId, cookies: await confirmationPendingCookies(ctx.auth, decoyId) };
}

/**
 * Creates the account and mails a confirmation link. Like PropelAuth, no session exists until
 * the email is confirmed: the browser gets the "confirm your email" state instead, and the
 * console never receives tokens for an address nobody has proven to own.
 */
export async function signUp(ctx: IdentityContext, req: FastifyRequest, input: SignupInput) {
  await enforce(ctx, `signup:ip:${clientIp(req)}`, LIMITS.signupPerIp);
  const email = normalizeEmail(input.email);
  const [taken] = await ctx.db.select({ id: user.id }).from(user).where(eq(user.email, email));
  if (taken) return signUpTaken(ctx, email, input.password);
  if (input.username) {
    const [u] = await ctx.db.select({ id: user.id }).from(user).where(eq(user.username, input.username));
    if (u)
      throw new IdentityError("invalid_request_fields", undefined, { username: "This username is taken." });
  }
  let created: { headers: Headers; response: { user: { id: string } } };
  try {
    created = await ctx.auth.api.signUpEmail({
      body: {
        email,
        password: input.password,
        name: [input.first_name, input.last_name].filter(Boolean).join(" ") || email,
        firstName: input.first_name || undefined,
        lastName: input.last_name || undefined,
        username: input.username || undefined,
      },
      headers: fromNodeHeaders(req.headers),
      returnHeaders: true,
    });
  } catch (err) {
    const e = authErrorCode(err);
    if (e && e.status < 500)
      throw new IdentityError("invalid_request_fields", undefined, {
        [e.code.includes("PASSWORD") ? "password" : "email"]: "This value is not accepted.",
      });
    throw err;
  }
  // better-auth signs new users in; drop that session until the email is confirmed.
  await endStartedSession(ctx.auth, created.headers.getSetCookie());
  const userId = created.response.user.id;
  await ctx.limiter.hit(`confirm:user:${userId}`, LIMITS.resendConfirmation);
  await ctx.auth.api.sendVerificationEmail({ body: { email, callbackURL: callbackCarrying(input.rt) } });
  return { userId, cookies: await confirmationPendingCookies(ctx.auth, userId) };
}

/** Sends the confirmation link again to the user this browser is confirming (or signed in as). */
export async function resendConfirmation(ctx: IdentityContext, req: FastifyRequest) {
  const headers = fromNodeHeaders(req.headers);
  const session = await ctx.auth.api.getSession({ headers });
  const userId = session?.user.id ?? (await confirmationPendingUser(ctx.auth, headers));
  if (!userId) throw new IdentityError("not_logged_in");
  const [u] = await ctx.db.select().from(user).where(eq(user.id, userId));
  if (!u) {
    // The "check your email" state of a sign-up with a taken address (see signUpTaken): answer
    // as for a real one, sending nothing.
    if (session) throw new IdentityError("not_logged_in");
    await enforce(ctx, `confirm:user:${userId}`, LIMITS.resendConfirmation);
    return;
  }
  if (u.emailVerified) throw new IdentityError("email_already_confirmed");
  // The client's resend handles rate_limit_exceeded (not confirmation_email_sent).
  await enforce(ctx, `confirm:user:${userId}`, LIMITS.resendConfirmation);
  await ctx.auth.api.sendVerificationEmail({ body: { email: u.email } });
}

/**
 * Applies a confirmation link (sign-up, or a change of email). When this browser is the one that
 * typed the password, the sign-in continues: a session, or the second-factor step.
 */
/** The new address of an email-change link (unverified claims: only used to refuse early). */
function changeTarget(token: string): string | null {
  try {
    const { updateTo } = decodeJwt(token) as { updateTo?: unknown };
    return typeof updateTo === "string" && updateTo ? normalizeEmail(updateTo) : null;
  } catch {
    return null;
  }
}

export async function confirmEmail(ctx: IdentityContext, req: FastifyRequest, token: string) {
  const none: string[] = [];
  // An email change whose new address has meanwhile got an account of its own is void: that
  // account is never touched, and the link answers as an invalid one (the database's unique
  // address backs this check when both happen at once).
  const changeTo = changeTarget(token);
  if (changeTo) {
    const [taken] = await ctx.db.select({ id: user.id }).from(user).where(eq(user.email, changeTo));
    if (taken) return { ok: false as const, signedIn: false, cookies: none };
  }
  try {
    await ctx.auth.api.verifyEmail({ query: { token } });
  } catch (err) {
    if (authErrorCode(err) || isUniqueViolation(err))
      return { ok: false as const, signedIn: false, cookies: none };
    throw err;
  }
  // Valid by now (better-auth checked it); its payload names the address that was confirmed.
  const claims = decodeJwt(token) as { email?: string; updateTo?: string };
  const email = normalizeEmail(claims.updateTo ?? claims.email ?? "");
  const [u] = await ctx.db.select().from(user).where(eq(user.email, email));
  const pending = await confirmationPendingUser(ctx.auth, fromNodeHeaders(req.headers));
  if (!u || u.banned || pending !== u.id) return { ok: true as const, signedIn: false, cookies: none };
  if (u.twoFactorEnabled)
    return {
      ok: true as const,
      signedIn: false,
      needsCode: true,
      cookies: await twoFactorChallengeCookies(ctx.auth, u.id),
    };
  return { ok: true as const, signedIn: true, cookies: await sessionCookies(ctx.auth, u.id) };
}
