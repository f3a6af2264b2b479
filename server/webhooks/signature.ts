import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The webhook signature (header WEBHOOK_SIGNATURE_HEADER of contract/budgets.ts), Stripe style:
 * `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. The timestamp is signed
 * with the body, so a captured request cannot be replayed later than the receiver's tolerance.
 * Pure functions: the worker signs with them, tests and docs/webhooks.md verify with them.
 */

/** Default tolerance between the signature's time and the receiver's clock, in seconds. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signatureHex(secret: string, timestamp: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex");
}

/** The header's value for `body` signed at `timestamp` (unix seconds). */
export function signPayload(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${signatureHex(secret, timestamp, body)}`;
}

export type VerifyResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: "malformed" | "mismatch" | "expired" };

/**
 * Checks a signature header against the raw body: any `v1` entry matching (several appear while a
 * sender rotates secrets), compared in constant time, and `t` within `toleranceSeconds` of `now`.
 */
export function verifySignature(
  secret: string,
  body: string,
  header: string | undefined,
  opts: { now?: number; toleranceSeconds?: number } = {},
): VerifyResult {
  if (!header) return { ok: false, reason: "malformed" };
  const parts = header.split(",").map((p) => p.trim().split("="));
  const t = parts.find(([k]) => k === "t")?.[1];
  const v1s = parts
    .filter(([k, v]) => k === "v1" && v && /^[0-9a-f]{64}$/.test(v))
    .map(([, v]) => v as string);
  if (!t || !/^\d{1,12}$/.test(t) || !v1s.length) return { ok: false, reason: "malformed" };
  const timestamp = Number(t);
  const expected = Buffer.from(signatureHex(secret, timestamp, body), "hex");
  if (!v1s.some((v) => timingSafeEqual(Buffer.from(v, "hex"), expected)))
    return { ok: false, reason: "mismatch" };
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (opts.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS))
    return { ok: false, reason: "expired" };
  return { ok: true, timestamp };
}
