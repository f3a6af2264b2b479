import { fromNodeHeaders } from "better-auth/node";
import { eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { twoFactor, user } from "../../db/schema";
import { twoFactorChallengeUser } from "../better-auth/adapter";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { authErrorCode } from "../http";
import { claimTotpStep, REPLAYED_CODE } from "../mfa/factor";
import { clientIp, enforce, LIMITS } from "./limits";

/**
 * The second step of sign-in: a TOTP code or a one-time backup code against the two-factor
 * cookie. better-auth counts wrong codes per challenge (5, then the challenge is spent) and per
 * account (10 in a row lock the second factor for 15 minutes). A TOTP code is accepted once.
 */
export async function verifyLoginCode(
  ctx: IdentityContext,
  req: FastifyRequest,
  kind: "totp" | "backup",
  code: string,
  trustDevice = false,
): Promise<string[]> {
  await enforce(ctx, `mfa:ip:${clientIp(req)}`, LIMITS.mfaPerIp);
  const headers = fromNodeHeaders(req.headers);
  const userId = await twoFactorChallengeUser(ctx.auth, headers);
  if (!userId) throw new IdentityError("invalid_mfa_cookie");
  const [u] = await ctx.db.select({ banned: user.banned }).from(user).where(eq(user.id, userId));
  if (u?.banned) throw new IdentityError("account_disabled");
  // A right code is claimed (its time step recorded) before better-auth checks it, so a code
  // already used — or used at the same moment by another request — is refused.
  if (kind === "totp") {
    // As better-auth would: a locked second factor refuses every code (and none is used up).
    const [tf] = await ctx.db
      .select({ lockedUntil: twoFactor.lockedUntil })
      .from(twoFactor)
      .where(eq(twoFactor.userId, userId));
    if (tf?.lockedUntil && tf.lockedUntil.getTime() > Date.now())
      throw new IdentityError("account_mfa_locked");
    if ((await claimTotpStep(ctx, userId, code)) === "replayed")
      throw new IdentityError("invalid_request_fields", REPLAYED_CODE, { code: REPLAYED_CODE });
  }
  // A signed-in session on the request would turn this into better-auth's "already signed in"
  // path; sign-in verification must only ever use the challenge cookie.
  try {
    const result =
      kind === "totp"
        ? await ctx.auth.api.verifyTOTP({ body: { code, trustDevice }, headers, returnHeaders: true })
        : await ctx.auth.api.verifyBackupCode({ body: { code }, headers, returnHeaders: true });
    return result.headers.getSetCookie();
  } catch (err) {
    const e = authErrorCode(err);
    if (!e) throw err;
    switch (e.code) {
      case "INVALID_CODE":
        // The client's /verify handles a wrong code as invalid_request_fields on `code`.
        throw new IdentityError("invalid_request_fields", "The code is not correct.", {
          code: "The code is not correct.",
        });
      case "INVALID_BACKUP_CODE":
        throw new IdentityError("incorrect_mfa_code", "The backup code is not correct.");
      case "ACCOUNT_TEMPORARILY_LOCKED":
        throw new IdentityError("account_mfa_locked");
      case "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE":
        throw new IdentityError("invalid_mfa_cookie", "Too many wrong codes. Please sign in again.");
      case "BANNED_USER":
        throw new IdentityError("account_disabled");
      case "INVALID_TWO_FACTOR_COOKIE":
      case "TOTP_NOT_ENABLED":
      case "BACKUP_CODES_NOT_ENABLED":
        throw new IdentityError("invalid_mfa_cookie");
      default:
        if (e.status < 500) throw new IdentityError("invalid_mfa_cookie");
        throw err;
    }
  }
}
