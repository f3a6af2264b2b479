import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import QRCode from "qrcode";
import { twoFactor, user } from "../../db/schema/index";
import type { Tx } from "../../platform/database";
import { decryptSecret, encryptSecret } from "../better-auth/adapter";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";

// PropelAuth's security_status hands out a fresh TOTP secret without asking for the password,
// which better-auth's enable endpoint requires. So the pending (unverified) secret is written
// here in better-auth's own storage format (encrypted secret, encrypted JSON backup codes);
// better-auth's verify-TOTP then turns it on once the user proves a code.

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

const ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const randomCode = () => {
  const s = Array.from({ length: 10 }, () => ALNUM[randomInt(ALNUM.length)]).join("");
  return `${s.slice(0, 5)}-${s.slice(5)}`;
};

export type PendingSecret = { secret: string; uri: string; qr: string };

/** A new pending TOTP secret for the user (replacing an older pending one), with its QR code. */
export async function newPendingSecret(
  ctx: IdentityContext,
  userId: string,
  email: string,
): Promise<PendingSecret> {
  const raw = randomBytes(24).toString("base64url").slice(0, 32);
  const row = {
    secret: await encryptSecret(ctx.auth, raw),
    backupCodes: await encryptSecret(ctx.auth, JSON.stringify(Array.from({ length: 10 }, randomCode))),
    verified: false,
    // A new secret starts a new sequence of codes.
    lastUsedStep: null,
  };
  const [existing] = await ctx.db.select().from(twoFactor).where(eq(twoFactor.userId, userId));
  if (existing) await ctx.db.update(twoFactor).set(row).where(eq(twoFactor.id, existing.id));
  else await ctx.db.insert(twoFactor).values({ id: randomUUID(), userId, ...row });
  return present(raw, email);
}

async function present(raw: string, email: string): Promise<PendingSecret> {
  const secret = base32(new TextEncoder().encode(raw));
  const label = encodeURIComponent(`Eval Console:${email}`);
  const uri = `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent("Eval Console")}&digits=6&period=30`;
  return { secret, uri, qr: await QRCode.toDataURL(uri, { margin: 1, width: 200 }) };
}

/**
 * The pending secret the hosted page shows: kept across reloads (the user may have scanned it
 * already), made when there is none.
 */
export async function currentPendingSecret(ctx: IdentityContext, userId: string, email: string) {
  const [row] = await ctx.db.select().from(twoFactor).where(eq(twoFactor.userId, userId));
  if (row && row.verified === false) {
    const raw = await decryptSecret(ctx.auth, row.secret);
    return present(raw, email);
  }
  return newPendingSecret(ctx, userId, email);
}

/** The backup codes not used yet (better-auth removes a code when it is used). */
export async function backupCodes(ctx: IdentityContext, userId: string): Promise<string[]> {
  const res = await ctx.auth.api.viewBackupCodes({ body: { userId } });
  return res.backupCodes;
}

/** What a change also writes in its transaction (its audit entries). */
export type AlsoWrite = (tx: Tx) => Promise<void>;

/**
 * Replaces the user's backup codes with 10 new ones (stored encrypted) and returns them; `also`
 * runs in the same transaction (a failed audit write keeps the old codes).
 */
export async function newBackupCodes(
  ctx: IdentityContext,
  userId: string,
  also?: AlsoWrite,
): Promise<string[]> {
  const codes = Array.from({ length: 10 }, randomCode);
  const data = await encryptSecret(ctx.auth, JSON.stringify(codes));
  await ctx.db.transaction(async (tx) => {
    const updated = await tx
      .update(twoFactor)
      .set({ backupCodes: data })
      .where(eq(twoFactor.userId, userId))
      .returning({ id: twoFactor.id });
    if (!updated.length) throw new IdentityError("bad_request", "Turn on two-factor authentication first.");
    await also?.(tx);
  });
  return codes;
}

/** Turns MFA off: the secret and backup codes are deleted; `also` runs in the same transaction. */
export async function disableMfa(ctx: IdentityContext, userId: string, also?: AlsoWrite) {
  await ctx.db.transaction(async (tx) => {
    await tx.delete(twoFactor).where(eq(twoFactor.userId, userId));
    await tx.update(user).set({ twoFactorEnabled: false, updatedAt: new Date() }).where(eq(user.id, userId));
    await also?.(tx);
  });
}
