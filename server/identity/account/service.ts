import { fromNodeHeaders } from "better-auth/node";
import { and, eq, ne } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { account, user } from "../../db/schema/index";
import { verifyPassword } from "../better-auth/adapter";
import type { IdentityContext } from "../context";
import { emailChangeAttemptNotice } from "../email/templates";
import { IdentityError } from "../errors";
import type { SessionUser } from "../fe/plumbing";
import { authErrorCode } from "../http";
import { enforce, LIMITS, normalizeEmail } from "../login/limits";
import { claimTotpStep, type FreshFactor, REPLAYED_CODE, requireFreshFactor } from "../mfa/factor";
import { backupCodes, disableMfa, newBackupCodes, newPendingSecret } from "../mfa/setup";
import { actorOf } from "../orgs/access";
import { announceDeletedUsers, revokeAccessTokens } from "../session/token-version";
import { writeSecurityAudit } from "./security-audit";

// Account changes for the signed-in user, shared by /api/fe/v3 and the hosted /account page.
// Each returns the Set-Cookie headers better-auth produced (it rotates the session on some).

/** The user's password hash, or null for an account without a password (social, SAML, magic link). */
async function passwordHash(ctx: IdentityContext, userId: string) {
  const [a] = await ctx.db
    .select({ password: account.password })
    .from(account)
    .where(and(eq(account.userId, userId), eq(account.providerId, "credential")));
  return a?.password ?? null;
}

const hasPassword = async (ctx: IdentityContext, userId: string) => Boolean(await passwordHash(ctx, userId));

async function checkPassword(ctx: IdentityContext, userId: string, password: string | undefined) {
  const hash = await passwordHash(ctx, userId);
  if (!hash) return;
  if (!password) throw new IdentityError("incorrect_password", "Please enter your current password.");
  if (!(await verifyPassword(ctx.auth, hash, password)))
    throw new IdentityError("incorrect_password", "The password is not correct.");
}

const mfaOn = (s: SessionUser) => Boolean((s.user as { twoFactorEnabled?: boolean }).twoFactorEnabled);

/**
 * MFA status. The backup codes themselves are never listed here (a session alone must not reveal
 * them): `backup_codes` stays an empty list for the PropelAuth client's shape, with the count left.
 * They are shown once when MFA is turned on and by regenerateBackupCodes, which needs a factor.
 */
export async function securityStatus(ctx: IdentityContext, s: SessionUser) {
  if (mfaOn(s))
    return {
      type: "Enabled" as const,
      mfa_enabled: true as const,
      backup_codes: [] as string[],
      backup_codes_remaining: (await backupCodes(ctx, s.user.id)).length,
    };
  const pending = await newPendingSecret(ctx, s.user.id, s.user.email);
  return {
    type: "Disabled" as const,
    mfa_enabled: false as const,
    new_secret: pending.secret,
    new_qr: pending.qr,
  };
}

/** Proves the pending secret with a code; better-auth enables MFA and rotates the session. */
export async function enableMfa(ctx: IdentityContext, req: FastifyRequest, s: SessionUser, code: string) {
  if (mfaOn(s)) throw new IdentityError("action_already_complete");
  // The pending secret's code is claimed first: the code that turns MFA on cannot sign in again.
  if ((await claimTotpStep(ctx, s.user.id, code)) === "replayed")
    throw new IdentityError("invalid_request_fields", REPLAYED_CODE, { code: REPLAYED_CODE });
  try {
    const { headers } = await ctx.auth.api.verifyTOTP({
      body: { code },
      headers: fromNodeHeaders(req.headers),
      returnHeaders: true,
    });
    // better-auth turned it on in its own transaction: the entry follows at once after it.
    await writeSecurityAudit(ctx.db, actorOf(s), "user.mfa_enabled");
    return headers.getSetCookie();
  } catch (err) {
    const e = authErrorCode(err);
    if (e?.code === "TOTP_NOT_ENABLED")
      throw new IdentityError("invalid_request_fields", undefined, { code: "Load a new secret first." });
    if (e && e.status < 500)
      throw new IdentityError("invalid_request_fields", undefined, { code: "The code is not correct." });
    throw err;
  }
}

/**
 * A change to MFA that is on: refused with `whenOff` while MFA is off, otherwise made only after a
 * fresh factor (TOTP code, backup code or password).
 */
async function changeOnMfa<T>(
  ctx: IdentityContext,
  req: FastifyRequest,
  s: SessionUser,
  f: FreshFactor,
  whenOff: IdentityError,
  change: () => Promise<T>,
): Promise<T> {
  if (!mfaOn(s)) throw whenOff;
  await requireFreshFactor(ctx, req, s, f);
  return change();
}

/** Turns MFA off after a fresh factor. */
export async function turnOffMfa(ctx: IdentityContext, req: FastifyRequest, s: SessionUser, f: FreshFactor) {
  const alreadyOff = new IdentityError("action_already_complete");
  await changeOnMfa(ctx, req, s, f, alreadyOff, () =>
    disableMfa(ctx, s.user.id, (tx) => writeSecurityAudit(tx, actorOf(s), "user.mfa_disabled")),
  );
}

/** Replaces the backup codes after a fresh factor and returns the new ones (shown once). */
export function regenerateBackupCodes(
  ctx: IdentityContext,
  req: FastifyRequest,
  s: SessionUser,
  f: FreshFactor,
) {
  const off = new IdentityError("bad_request", "Turn on two-factor authentication first.");
  return changeOnMfa(ctx, req, s, f, off, () =>
    newBackupCodes(ctx, s.user.id, (tx) =>
      writeSecurityAudit(tx, actorOf(s), "user.backup_codes_regenerated"),
    ),
  );
}

/** Mails a confirmation link to the new address; the change applies when it is opened. */
export async function updateEmail(
  ctx: IdentityContext,
  req: FastifyRequest,
  s: SessionUser,
  newEmail: string,
  password?: string,
) {
  const email = normalizeEmail(newEmail);
  if (email === s.user.email)
    throw new IdentityError("invalid_request_fields", undefined, {
      new_email: "This is already your email.",
    });
  await checkPassword(ctx, s.user.id, password);
  await enforce(ctx, `email-change:user:${s.user.id}`, LIMITS.emailChangePerUser, "confirmation_email_sent");
  // An address that already has an account is never moved to this one, and the answer is the
  // same as for a free address (so it reveals nothing): its owner gets a notice without any link
  // instead of a confirmation (at most LIMITS.emailPerAddress per window). A free address gets the
  // confirmation link; the change applies only when it is opened (see confirmEmail).
  const [owner] = await ctx.db.select({ id: user.id }).from(user).where(eq(user.email, email));
  if (owner) {
    const notice = LIMITS.emailPerAddress;
    if ((await ctx.limiter.hit(`email-change-notice:${email}`, notice)).allowed)
      await ctx.mailer.send(emailChangeAttemptNotice(ctx.config.authPublicUrl, email));
    return;
  }
  await ctx.auth.api.changeEmail({ body: { newEmail: email }, headers: fromNodeHeaders(req.headers) });
}

/** Changes (or, for users without one, sets) the password; other sessions are signed out. */
export async function updatePassword(
  ctx: IdentityContext,
  req: FastifyRequest,
  s: SessionUser,
  password: string,
  current?: string,
) {
  if (!(await hasPassword(ctx, s.user.id))) {
    await ctx.auth.api.setPassword({
      body: { newPassword: password },
      headers: fromNodeHeaders(req.headers),
    });
    await writeSecurityAudit(ctx.db, actorOf(s), "user.password_changed", { how: "set" });
    return [];
  }
  await checkPassword(ctx, s.user.id, current);
  const { headers } = await ctx.auth.api.changePassword({
    body: { newPassword: password, currentPassword: current ?? "", revokeOtherSessions: true },
    headers: fromNodeHeaders(req.headers),
    returnHeaders: true,
  });
  // Access tokens of the other sessions end with them (this session refreshes a new one).
  await revokeAccessTokens(ctx.db, [s.user.id]);
  // better-auth changed it in its own transaction: the entries follow at once after it.
  await ctx.db.transaction(async (tx) => {
    await writeSecurityAudit(tx, actorOf(s), "user.password_changed", { how: "changed" });
    await writeSecurityAudit(tx, actorOf(s), "user.sessions_revoked", {
      sessions: "others",
      reason: "password changed",
    });
  });
  return headers.getSetCookie();
}

export type MetadataInput = {
  first_name?: string | undefined;
  last_name?: string | undefined;
  username?: string | undefined;
};

export async function updateMetadata(ctx: IdentityContext, s: SessionUser, m: MetadataInput) {
  if (m.username) {
    const [taken] = await ctx.db
      .select({ id: user.id })
      .from(user)
      .where(and(eq(user.username, m.username), ne(user.id, s.user.id)));
    if (taken)
      throw new IdentityError("invalid_request_fields", undefined, { username: "This username is taken." });
  }
  const u = s.user as { firstName?: string | null; lastName?: string | null };
  const first = m.first_name ?? u.firstName ?? "";
  const last = m.last_name ?? u.lastName ?? "";
  await ctx.db
    .update(user)
    .set({
      ...(m.first_name !== undefined ? { firstName: m.first_name || null } : {}),
      ...(m.last_name !== undefined ? { lastName: m.last_name || null } : {}),
      ...(m.username !== undefined ? { username: m.username || null } : {}),
      name: [first, last].filter(Boolean).join(" ") || s.user.email,
      updatedAt: new Date(),
    })
    .where(eq(user.id, s.user.id));
}

/** Deletes the account and everything hanging off it (sessions, memberships, keys cascade). */
export async function deleteMe(ctx: IdentityContext, req: FastifyRequest) {
  const session = await ctx.auth.api.getSession({ headers: fromNodeHeaders(req.headers) }).catch(() => null);
  try {
    const { headers } = await ctx.auth.api.deleteUser({
      body: {},
      headers: fromNodeHeaders(req.headers),
      returnHeaders: true,
    });
    // The user's access tokens stop working on the product API at once (the row is gone).
    if (session) await announceDeletedUsers(ctx.db, [session.user.id]);
    return headers.getSetCookie();
  } catch (err) {
    const e = authErrorCode(err);
    if (e?.code === "SESSION_EXPIRED")
      throw new IdentityError("not_logged_in", "Please sign in again before deleting your account.");
    throw err;
  }
}

/** The session for a hosted form action, or null (the page then sends the visitor to sign in). */
export async function requireSessionForPage(
  ctx: IdentityContext,
  req: FastifyRequest,
): Promise<SessionUser | null> {
  const found = await ctx.auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
  if (!found || (found.user as { banned?: boolean | null }).banned) return null;
  return found;
}
