import { randomBytes } from "node:crypto";
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthEndpoint } from "better-auth/api";
import { setSessionCookie } from "better-auth/cookies";
import { symmetricDecrypt, symmetricEncrypt } from "better-auth/crypto";
import { z } from "zod";
import type { Auth } from "./auth";

// The one place that reaches past better-auth's public API (its endpoint context: internal
// adapter, cookie names, secret, password hasher). Everything else calls `auth.api.*`. An
// upgrade of better-auth is checked here first, against tests/server/better-auth-adapter.test.ts.
//
// The cookies are set and read by better-auth's own endpoint context (signed the way its
// endpoints check them), inside server-only endpoints of a small plugin; callers get them as the
// Set-Cookie headers of `returnHeaders: true`.

/** better-auth's two-factor plugin cookie and lifetime (TWO_FACTOR_COOKIE_NAME, its default maxAge). */
const TWO_FACTOR = "two_factor";
const TWO_FACTOR_MAX_AGE = 600;
/** "Password accepted, email not confirmed yet" in this browser, for one user. */
const PENDING = "confirm_pending";
const PENDING_MAX_AGE = 60 * 60 * 24;

const forUser = z.object({ userId: z.string().min(1) });

/** Server-only endpoints (not routed over HTTP) for the sign-in steps better-auth has no endpoint for. */
export const signInSteps = () =>
  ({
    id: "sign-in-steps",
    endpoints: {
      /**
       * Opens a second-factor challenge exactly as the two-factor plugin does after a password
       * sign-in (a verification row, its attempt counter, the signed cookie), for sign-ins that
       * skip its hook: magic links, confirmation links, social and SAML sign-ins.
       */
      openTwoFactorChallenge: createAuthEndpoint.serverOnly(
        { method: "POST", body: forUser },
        async (ctx) => {
          const cookie = ctx.context.createAuthCookie(TWO_FACTOR, { maxAge: TWO_FACTOR_MAX_AGE });
          const identifier = `2fa-${randomBytes(15).toString("base64url")}`;
          const expiresAt = new Date(Date.now() + TWO_FACTOR_MAX_AGE * 1000);
          const adapter = ctx.context.internalAdapter;
          await adapter.createVerificationValue({ value: ctx.body.userId, identifier, expiresAt });
          await adapter.createVerificationValue({
            value: "0",
            identifier: `2fa-attempts-${identifier}`,
            expiresAt,
          });
          await ctx.setSignedCookie(cookie.name, identifier, ctx.context.secret, cookie.attributes);
          return ctx.json({ status: true });
        },
      ),
      /** The user waiting for a second factor in this browser, if the challenge is still open. */
      twoFactorChallengeUser: createAuthEndpoint.serverOnly(
        { method: "POST", requireHeaders: true },
        async (ctx) => {
          const name = ctx.context.createAuthCookie(TWO_FACTOR).name;
          const id = await ctx.getSignedCookie(name, ctx.context.secret);
          const found = id ? await ctx.context.internalAdapter.findVerificationValue(id) : null;
          return ctx.json({ userId: found && found.expiresAt > new Date() ? found.value : null });
        },
      ),
      markConfirmationPending: createAuthEndpoint.serverOnly(
        { method: "POST", body: forUser },
        async (ctx) => {
          const cookie = ctx.context.createAuthCookie(PENDING, { maxAge: PENDING_MAX_AGE });
          const until = Math.floor(Date.now() / 1000) + PENDING_MAX_AGE;
          await ctx.setSignedCookie(
            cookie.name,
            `${ctx.body.userId}:${until}`,
            ctx.context.secret,
            cookie.attributes,
          );
          return ctx.json({ status: true });
        },
      ),
      confirmationPendingUser: createAuthEndpoint.serverOnly(
        { method: "POST", requireHeaders: true },
        async (ctx) => {
          const name = ctx.context.createAuthCookie(PENDING).name;
          const value = await ctx.getSignedCookie(name, ctx.context.secret);
          const [userId, until] = value ? value.split(":") : [];
          return ctx.json({ userId: userId && Number(until) > Date.now() / 1000 ? userId : null });
        },
      ),
      /** A full session for a user whose identity was just proven (confirmation link, SAML). */
      startSessionFor: createAuthEndpoint.serverOnly({ method: "POST", body: forUser }, async (ctx) => {
        const user = await ctx.context.internalAdapter.findUserById(ctx.body.userId);
        if (!user) throw APIError.from("BAD_REQUEST", { code: "USER_NOT_FOUND", message: "No such user." });
        const session = await ctx.context.internalAdapter.createSession(user.id);
        await setSessionCookie(ctx, { session, user }, false);
        return ctx.json({ status: true });
      }),
    },
  }) satisfies BetterAuthPlugin;

/** The Set-Cookie headers a server-only endpoint answered with. */
const cookiesOf = async (call: Promise<{ headers: Headers }>) => (await call).headers.getSetCookie();

/** Set-Cookie of a new second-factor challenge for the user. */
export const twoFactorChallengeCookies = (auth: Auth, userId: string) =>
  cookiesOf(auth.api.openTwoFactorChallenge({ body: { userId }, returnHeaders: true }));

export const twoFactorChallengeUser = async (auth: Auth, headers: Headers) =>
  (await auth.api.twoFactorChallengeUser({ headers })).userId;

/** Set-Cookie marking this browser as confirming the user's email (signed, one day). */
export const confirmationPendingCookies = (auth: Auth, userId: string) =>
  cookiesOf(auth.api.markConfirmationPending({ body: { userId }, returnHeaders: true }));

export const confirmationPendingUser = async (auth: Auth, headers: Headers) =>
  (await auth.api.confirmationPendingUser({ headers })).userId;

/** Set-Cookie of a new session for the user. */
export const sessionCookies = (auth: Auth, userId: string) =>
  cookiesOf(auth.api.startSessionFor({ body: { userId }, returnHeaders: true }));

/** A password hash made by better-auth's configured hasher (what its sign-in verifies). */
export const hashPassword = async (auth: Auth, password: string) =>
  (await auth.$context).password.hash(password);

export const verifyPassword = async (auth: Auth, hash: string, password: string) =>
  (await auth.$context).password.verify({ hash, password });

/** Encrypts a value the way the two-factor plugin stores TOTP secrets and backup codes. */
export const encryptSecret = async (auth: Auth, data: string) =>
  symmetricEncrypt({ key: (await auth.$context).secretConfig, data });

export const decryptSecret = async (auth: Auth, data: string) =>
  symmetricDecrypt({ key: (await auth.$context).secretConfig, data });
