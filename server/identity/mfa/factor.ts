import { createHmac, timingSafeEqual } from "node:crypto";
import { fromNodeHeaders } from "better-auth/node";
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { account, twoFactor } from "../../db/schema/index";
import { decryptSecret, verifyPassword } from "../better-auth/adapter";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import type { SessionUser } from "../fe/plumbing";
import { authErrorCode } from "../http";
import { enforce } from "../login/limits";

// TOTP codes are checked by better-auth's two-factor plugin, which accepts a code any number of
// times inside its window (the step before, the current one and the next). Every TOTP check goes
// through claimTotpStep first: it finds the time step the code belongs to and records it in
// two_factor.last_used_step with a conditional UPDATE, so a step is accepted once per account
// and two concurrent uses of one code cannot both pass.

const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** better-auth's verify window: one step either side of now. */
const WINDOW = 1;

export const REPLAYED_CODE = "This code was already used. Wait for the next code from your app.";
const WRONG_CODE = "The code is not correct.";

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32Decode(s: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of s.replace(/=+$/, "").toUpperCase()) {
    const i = BASE32.indexOf(ch);
    if (i < 0) continue;
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The HMAC key better-auth uses for a stored secret (imported secrets are "base32:<secret>"). */
function keyOf(secret: string): Buffer {
  return secret.startsWith("base32:") ? base32Decode(secret.slice(7)) : Buffer.from(secret, "utf8");
}

function hotp(key: Buffer, counter: number): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const h = createHmac("sha1", key).update(msg).digest();
  const o = (h[h.length - 1] ?? 0) & 15;
  const bin =
    (((h[o] ?? 0) & 0x7f) << 24) | ((h[o + 1] ?? 0) << 16) | ((h[o + 2] ?? 0) << 8) | (h[o + 3] ?? 0);
  return String(bin % 10 ** DIGITS).padStart(DIGITS, "0");
}

/** The time steps inside the window whose code is `code`, newest first. */
function matchingSteps(key: Buffer, code: string, now = Date.now()): number[] {
  if (!/^\d{6}$/.test(code)) return [];
  const current = Math.floor(now / 1000 / PERIOD_SECONDS);
  const given = Buffer.from(code);
  const found: number[] = [];
  for (let i = WINDOW; i >= -WINDOW; i--) {
    const expected = Buffer.from(hotp(key, current + i));
    if (timingSafeEqual(expected, given)) found.push(current + i);
  }
  return found;
}

/**
 * Checks a TOTP code against the user's (pending or enabled) secret and claims its time step.
 * "claimed": the code is right and its step was not used before (now it is); "replayed": right
 * code, step already used; "no_match": not a current code (or no secret), left for the caller.
 */
export async function claimTotpStep(
  ctx: IdentityContext,
  userId: string,
  code: string,
): Promise<"claimed" | "replayed" | "no_match"> {
  const [row] = await ctx.db
    .select({ id: twoFactor.id, secret: twoFactor.secret })
    .from(twoFactor)
    .where(eq(twoFactor.userId, userId));
  if (!row) return "no_match";
  let secret: string;
  try {
    secret = await decryptSecret(ctx.auth, row.secret);
  } catch {
    return "no_match";
  }
  const steps = matchingSteps(keyOf(secret), code.trim());
  if (!steps.length) return "no_match";
  for (const step of steps) {
    const claimed = await ctx.db
      .update(twoFactor)
      .set({ lastUsedStep: step })
      .where(
        and(eq(twoFactor.id, row.id), or(isNull(twoFactor.lastUsedStep), lt(twoFactor.lastUsedStep, step))),
      )
      .returning({ id: twoFactor.id });
    if (claimed.length) return "claimed";
  }
  return "replayed";
}

/** A fresh second factor (or the password) for a sensitive account change. */
export const freshFactorBody = z
  .object({
    code: z.string().trim().max(64).optional(),
    backup_code: z.string().trim().max(64).optional(),
    password: z.string().max(128).optional(),
  })
  .strict();
export type FreshFactor = z.infer<typeof freshFactorBody>;

// Each attempt counts, right or wrong: 10 in 10 minutes per account is plenty for a person and
// leaves a stolen session no room to guess codes.
const STEP_UP_LIMIT = { limit: 10, windowSeconds: 600 } as const;

const FACTOR_NEEDED =
  "Confirm with a code from your authenticator app, a backup code or your current password.";

/**
 * Proves the signed-in user is present: a TOTP code not used before, one backup code (used up)
 * or the account password. Throws when none is given or the one given is wrong.
 */
export async function requireFreshFactor(
  ctx: IdentityContext,
  req: FastifyRequest,
  s: SessionUser,
  f: FreshFactor,
) {
  const userId = s.user.id;
  if (!f.code && !f.backup_code && !f.password)
    throw new IdentityError("invalid_request_fields", FACTOR_NEEDED, { code: FACTOR_NEEDED });
  await enforce(ctx, `mfa-step-up:user:${userId}`, STEP_UP_LIMIT);
  if (f.code) {
    const claim = await claimTotpStep(ctx, userId, f.code);
    if (claim === "claimed") return;
    throw new IdentityError("incorrect_mfa_code", claim === "replayed" ? REPLAYED_CODE : WRONG_CODE, {
      code: claim === "replayed" ? REPLAYED_CODE : WRONG_CODE,
    });
  }
  if (f.backup_code) {
    try {
      // With a session better-auth removes the code (compare-and-swap on the stored list).
      await ctx.auth.api.verifyBackupCode({
        body: { code: f.backup_code, disableSession: true },
        headers: fromNodeHeaders(req.headers),
      });
      return;
    } catch (err) {
      const e = authErrorCode(err);
      if (e && e.status < 500)
        throw new IdentityError("incorrect_mfa_code", "The backup code is not correct.", {
          backup_code: "The backup code is not correct.",
        });
      throw err;
    }
  }
  const [cred] = await ctx.db
    .select({ password: account.password })
    .from(account)
    .where(and(eq(account.userId, userId), eq(account.providerId, "credential")));
  if (!cred?.password)
    throw new IdentityError("invalid_request_fields", FACTOR_NEEDED, {
      password: "This account has no password. Use a code instead.",
    });
  if (!(await verifyPassword(ctx.auth, cred.password, f.password ?? "")))
    throw new IdentityError("incorrect_password", "The password is not correct.", {
      password: "The password is not correct.",
    });
}
