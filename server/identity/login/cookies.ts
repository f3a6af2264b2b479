import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { IdentityContext } from "../context";

// Cookies of the sign-in flow. better-auth signs its cookies as `value.HMAC-SHA256(value)` in
// base64; the two-factor challenge and the session cookie we set here use the same format, so
// better-auth's own endpoints (verify TOTP, getSession) accept them.

type CookieAttrs = {
  secure?: boolean;
  sameSite?: string;
  path?: string;
  httpOnly?: boolean;
  domain?: string;
  maxAge?: number;
};

export const authContext = (ctx: IdentityContext) => ctx.auth.$context;

const signature = (value: string, secret: string) =>
  createHmac("sha256", secret).update(value).digest("base64");

function serialize(name: string, value: string, a: CookieAttrs, maxAge: number): string {
  let c = `${name}=${value}; Max-Age=${maxAge}; Path=${a.path ?? "/"}`;
  if (a.domain) c += `; Domain=${a.domain}`;
  if (a.httpOnly !== false) c += "; HttpOnly";
  if (a.secure) c += "; Secure";
  c += `; SameSite=${(a.sameSite ?? "lax").replace(/^./, (s) => s.toUpperCase())}`;
  return c;
}

export function readCookie(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** The value of a cookie signed with the auth secret, or null when missing or forged. */
async function readSigned(ctx: IdentityContext, req: FastifyRequest, name: string) {
  const raw = readCookie(req, name);
  if (!raw) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const dot = decoded.lastIndexOf(".");
  if (dot <= 0) return null;
  const value = decoded.slice(0, dot);
  const given = Buffer.from(decoded.slice(dot + 1));
  const expected = Buffer.from(signature(value, (await authContext(ctx)).secret));
  return given.length === expected.length && timingSafeEqual(given, expected) ? value : null;
}

async function signedCookie(ctx: IdentityContext, short: string, value: string, maxAge: number) {
  const ac = await authContext(ctx);
  const { name, attributes } = ac.createAuthCookie(short, { maxAge });
  const signed = encodeURIComponent(`${value}.${signature(value, ac.secret)}`);
  return serialize(name, signed, attributes as CookieAttrs, maxAge);
}

async function expired(ctx: IdentityContext, short: string) {
  const { name, attributes } = (await authContext(ctx)).createAuthCookie(short);
  return serialize(name, "", attributes as CookieAttrs, 0);
}

const TWO_FACTOR = "two_factor";
const TWO_FACTOR_MAX_AGE = 600;

/** The user waiting for a second factor in this browser, if the challenge is still open. */
export async function twoFactorUserId(ctx: IdentityContext, req: FastifyRequest) {
  const ac = await authContext(ctx);
  const id = await readSigned(ctx, req, ac.createAuthCookie(TWO_FACTOR).name);
  if (!id) return null;
  const v = await ac.internalAdapter.findVerificationValue(id);
  return v && v.expiresAt > new Date() ? v.value : null;
}

/**
 * Opens a second-factor challenge exactly as better-auth's password sign-in does (a verification
 * row, an attempt counter, the signed cookie), for sign-ins that skip its hook: magic links and
 * confirmation links.
 */
export async function startTwoFactorChallenge(ctx: IdentityContext, userId: string) {
  const ac = await authContext(ctx);
  const identifier = `2fa-${randomBytes(15).toString("base64url")}`;
  const expiresAt = new Date(Date.now() + TWO_FACTOR_MAX_AGE * 1000);
  await ac.internalAdapter.createVerificationValue({ value: userId, identifier, expiresAt });
  await ac.internalAdapter.createVerificationValue({
    value: "0",
    identifier: `2fa-attempts-${identifier}`,
    expiresAt,
  });
  return signedCookie(ctx, TWO_FACTOR, identifier, TWO_FACTOR_MAX_AGE);
}

const PENDING = "confirm_pending";
const PENDING_MAX_AGE = 60 * 60 * 24;

/** Marks this browser as "password accepted, email not confirmed yet" for one user. */
export const pendingConfirmCookie = (ctx: IdentityContext, userId: string) =>
  signedCookie(ctx, PENDING, `${userId}:${Math.floor(Date.now() / 1000) + PENDING_MAX_AGE}`, PENDING_MAX_AGE);

export const clearPendingConfirmCookie = (ctx: IdentityContext) => expired(ctx, PENDING);

export async function pendingConfirmUserId(ctx: IdentityContext, req: FastifyRequest) {
  const value = await readSigned(ctx, req, (await authContext(ctx)).createAuthCookie(PENDING).name);
  const [userId, exp] = value?.split(":") ?? [];
  return userId && Number(exp) > Date.now() / 1000 ? userId : null;
}

/** Starts a full session for a user whose identity was just proven (confirmation link). */
export async function startSession(ctx: IdentityContext, userId: string) {
  const ac = await authContext(ctx);
  const session = await ac.internalAdapter.createSession(userId);
  const { name, attributes } = ac.authCookies.sessionToken;
  const maxAge = ac.sessionConfig.expiresIn;
  const signed = encodeURIComponent(`${session.token}.${signature(session.token, ac.secret)}`);
  return serialize(name, signed, attributes as CookieAttrs, maxAge);
}
