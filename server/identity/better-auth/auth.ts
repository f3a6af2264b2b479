import { randomUUID } from "node:crypto";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { admin, magicLink, organization, twoFactor } from "better-auth/plugins";
import type { SocialProviders } from "better-auth/social-providers";
import type { FastifyBaseLogger } from "fastify";
import {
  account,
  invitation,
  member,
  organization as orgTable,
  session,
  twoFactor as twoFactorTable,
  user,
  verification,
} from "../../db/schema/index";
import type { Db } from "../../platform/database";
import type { RateLimits } from "../../platform/rate-limits";
import type { Mailer } from "../email/mailer";
import {
  confirmEmail,
  invitationEmail,
  magicLinkEmail,
  resetPassword,
  returnTargetOf,
} from "../email/templates";
import { afterPasswordReset } from "../login/recovery";
import { signInSteps } from "./adapter";
import { hashedSessionTokens } from "./hashed-tokens";

/** Our cookies' names start with it (`eval_console.session_token`, `__Secure-` first over HTTPS). */
export const COOKIE_PREFIX = "eval_console";

export type AuthOptions = {
  db: Db;
  /** The rate-limit counters; a password reset clears the sign-in failures counted there. */
  limits: RateLimits;
  secret: string;
  /** The identity service's public origin: better-auth checks request origins against it. */
  baseURL: string;
  trustedOrigins: string[];
  /** Members per organization when the organization sets no max_users of its own. */
  maxUsersPerOrg: number;
  mailer: Mailer;
  /** Social sign-in providers (OAuth); only their callback paths are served by better-auth. */
  socialProviders?: SocialProviders;
  /** Where better-auth's own log lines go (the service's logger, which redacts secrets). */
  logger?: Pick<FastifyBaseLogger, "debug" | "info" | "warn" | "error">;
};

/**
 * better-auth does sessions, password hashing, TOTP, magic links, impersonation and organization
 * membership underneath. Of its HTTP endpoints only the social OAuth callback is served (see
 * social/routes.ts); our routes call `auth.api.*` and its emails link to our hosted pages.
 */
export function createAuth(o: AuthOptions) {
  const mail = o.mailer;
  return betterAuth({
    appName: "Eval Console",
    baseURL: o.baseURL,
    basePath: "/api/auth",
    secret: o.secret,
    trustedOrigins: [o.baseURL, ...o.trustedOrigins],
    // Session tokens are stored as SHA-256 digests (hashed-tokens.ts); the cookie keeps the token.
    database: hashedSessionTokens(
      drizzleAdapter(o.db, {
        provider: "pg",
        schema: {
          user,
          session,
          account,
          verification,
          organization: orgTable,
          member,
          invitation,
          twoFactor: twoFactorTable,
        },
      }),
    ),
    // Reset, magic-link and second-factor identifiers are stored as SHA-256 digests (emails and
    // cookies carry the raw value). Email confirmations are signed JWTs: nothing is stored.
    verification: { storeIdentifier: "hashed" },
    // Social providers' access and refresh tokens are kept encrypted under the auth secret.
    account: { encryptOAuthTokens: true },
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 8,
      maxPasswordLength: 128,
      autoSignIn: true,
      revokeSessionsOnPasswordReset: true,
      resetPasswordTokenExpiresIn: 3600,
      sendResetPassword: async ({ user: u, token }) =>
        void (await mail.send(resetPassword(o.baseURL, u.email, token))),
      onPasswordReset: ({ user: u }) => afterPasswordReset(o.db, o.limits, u),
    },
    emailVerification: {
      sendOnSignUp: false,
      expiresIn: 60 * 60 * 24,
      sendVerificationEmail: async ({ user: u, url, token }) =>
        void (await mail.send(confirmEmail(o.baseURL, u.email, token, returnTargetOf(url)))),
    },
    socialProviders: o.socialProviders ?? {},
    user: {
      additionalFields: {
        firstName: { type: "string", required: false, input: true },
        lastName: { type: "string", required: false, input: true },
        username: { type: "string", required: false, input: true },
        properties: { type: "string", required: false, input: false },
      },
      // The new address gets a confirmation link (emailVerification) before it takes effect.
      changeEmail: { enabled: true },
      deleteUser: { enabled: true },
    },
    // No cookie cache: a session ended by logout or revocation must stop refreshing at once.
    session: { expiresIn: 60 * 60 * 24 * 14, updateAge: 60 * 60 * 24 },
    // Our own limiter (identity/rate-limit.ts) guards our routes; auth.api calls bypass this one.
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    // Expected refusals (wrong password) are answered to the user, not logged as warnings.
    logger: {
      level: "error",
      ...(o.logger && {
        log: (level: "debug" | "info" | "warn" | "error", message: string, ...args: unknown[]) => {
          const err = args.find((a) => a instanceof Error);
          o.logger?.[level]({ component: "better-auth", ...(err ? { err } : {}) }, message);
        },
      }),
    },
    advanced: {
      cookiePrefix: COOKIE_PREFIX,
      database: { generateId: () => randomUUID() },
    },
    plugins: [
      organization({
        allowUserToCreateOrganization: true,
        creatorRole: "owner",
        membershipLimit: async (_user, org) =>
          (org as { maxUsers?: number | null }).maxUsers ?? o.maxUsersPerOrg,
        invitationExpiresIn: 60 * 60 * 24 * 7,
        cancelPendingInvitationsOnReInvite: true,
        sendInvitationEmail: async (data) =>
          void (await mail.send(
            invitationEmail(o.baseURL, data.email, data.id, data.organization.name, data.inviter.user.email),
          )),
        schema: {
          organization: {
            additionalFields: {
              roleStructure: {
                type: "string",
                required: false,
                input: true,
                defaultValue: "single_role_in_hierarchy",
              },
              domain: { type: "string", required: false, input: true },
              autojoinByDomain: { type: "boolean", required: false, input: true, defaultValue: false },
              restrictToDomain: { type: "boolean", required: false, input: true, defaultValue: false },
              require2faBy: { type: "date", required: false, input: true },
              maxUsers: { type: "number", required: false, input: true },
            },
          },
        },
      }),
      twoFactor({ issuer: "Eval Console", allowPasswordless: true }),
      magicLink({
        expiresIn: 600,
        sendMagicLink: async ({ email, url, token }) =>
          void (await mail.send(magicLinkEmail(o.baseURL, email, token, returnTargetOf(url)))),
      }),
      admin({ adminRoles: ["admin"], defaultRole: "user", impersonationSessionDuration: 60 * 60 }),
      signInSteps(),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;
