import { createPublicKey } from "node:crypto";
import type { FastifyBaseLogger, FastifyError } from "fastify";
import type { Config } from "../platform/config";
import type { Database } from "../platform/database";
import { registerHealth } from "../platform/health";
import { acceptEmptyJsonBodies, acceptForms, allowOrigins, createHttpApp } from "../platform/http";
import type { ApiKeyIdentity, IdentityGateway } from "../platform/identity-gateway";
import { resolveKeyring } from "../platform/secrets";
import { refuseUnstorableText } from "../platform/text-input";
import { createTokenVersionWatch } from "../platform/token-revocation";
import { createIdentityAdmin } from "./admin";
import { identityApi } from "./api";
import { createApiKeyService, type ValidatedApiKey } from "./api-keys/service";
import { createApiKeyValidation } from "./api-keys/validation-cache";
import { keyIdentity } from "./backend-api/shapes";
import { createAuth } from "./better-auth/auth";
import { hashLegacySessionTokens } from "./better-auth/hashed-tokens";
import type { IdentityContext } from "./context";
import { createDirectory } from "./directory";
import { createMailer } from "./email/mailer";
import { IdentityError } from "./errors";
import { identityError } from "./http";
import { isProviderOperator, operatorRoles } from "./impersonation/operators";
import { registerImpersonationWriteAudit } from "./impersonation/writes";
import { dummyPasswordHash } from "./login/password-login";
import { DEFAULT_MAX_USERS } from "./orgs/limits";
import { refuseCrossSiteRequests } from "./origin-check";
import { identityPages } from "./pages";
import { createTokenIssuer } from "./session/access-tokens";
import { currentTokenVersion } from "./session/token-version";
import { loadAuthSecret, loadBackendApiKey, loadSigningKeys, sealStoredSecrets } from "./settings";
import { betterAuthSocialProviders } from "./social/better-auth-options";
import { loadSocialProviders } from "./social/providers";

/** The identity service: hosted pages and the PropelAuth-compatible API at its own origin root. */
export async function createIdentityService(config: Config, database: Database, logger: FastifyBaseLogger) {
  const { db } = database;
  const socialProviders = loadSocialProviders(config.environment);
  // Stored secrets are sealed under SECRETS_KEY (or DATA_DIR/secrets.key); old values re-sealed.
  const keyring = resolveKeyring(
    {
      secretsKey: config.secretsKey,
      secretsKeysPrevious: config.secretsKeysPrevious,
      dataDir: config.dataDir,
      inMemoryDatabase: database.describe === "PGlite in memory",
      databaseKind: database.kind,
    },
    logger,
  );
  await sealStoredSecrets(db, keyring);
  const keys = await loadSigningKeys(db);
  await hashLegacySessionTokens(db);
  const log = logger.child({ component: "identity" });
  const mailer = createMailer(db, { smtpUrl: config.smtpUrl, from: config.emailFrom }, log);
  const auth = createAuth({
    db,
    limits: database.rateLimits,
    secret: await loadAuthSecret(db, config.authSecret),
    baseURL: config.authPublicUrl,
    trustedOrigins: config.allowedOrigins,
    maxUsersPerOrg: DEFAULT_MAX_USERS,
    mailer,
    socialProviders: betterAuthSocialProviders(socialProviders),
    logger: log,
  });
  const directory = createDirectory(db);
  // Token-version changes and cache notices: this process's announcements, and other processes'
  // NOTIFY on PostgreSQL.
  const versionWatch = createTokenVersionWatch(db, database.listen);
  const apiKeys = createApiKeyValidation(db, createApiKeyService(db, directory).validate, {
    watch: versionWatch.watch,
  });
  const identities = new WeakMap<ValidatedApiKey, ApiKeyIdentity>();
  const ctx: IdentityContext = {
    config,
    db,
    auth,
    directory,
    apiKeys,
    tokens: createTokenIssuer(keys, config.authPublicUrl, config.accessTokenTtlSeconds),
    mailer,
    limiter: database.rateLimits,
    backendApiKey: await loadBackendApiKey(db, config.backendApiKey),
    socialProviders,
  };

  // Hashed now, so the first sign-in of an unknown email is not the one slow answer.
  await dummyPasswordHash(ctx);
  const app = createHttpApp(log, {
    trustProxy: config.trustProxy,
    // Hosted pages are server-rendered forms with inline styles and no scripts.
    htmlCsp: {
      "default-src": ["'none'"],
      "script-src": ["'none'"],
      "style-src": ["'unsafe-inline'"],
      "img-src": ["'self'", "data:"],
      "base-uri": ["'none'"],
      "frame-ancestors": ["'none'"],
    },
    errorShape: (_code, message) => ({ error_code: "bad_request", user_facing_error: message }),
  });
  // Cross-site form posts and foreign origins on /api/fe/v3 are refused before anything else.
  refuseCrossSiteRequests(app, config);
  await allowOrigins(app, config.allowedOrigins, ["Content-Type", "X-CSRF-Token"]);
  // The PropelAuth client posts logout as JSON with no body at all.
  acceptEmptyJsonBodies(app);
  // Hosted pages post ordinary HTML forms.
  acceptForms(app);
  // A NUL byte or a lone surrogate in a path, query or body is bad input, refused before any route
  // looks it up: PostgreSQL's text refuses the first with an error a handler would answer as a 500.
  refuseUnstorableText(app, (_code, message) => ({ error_code: "bad_request", user_facing_error: message }));
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof IdentityError) {
      if (err.code === "rate_limit_exceeded" && err.fieldErrors?.retry_after_seconds)
        reply.header("retry-after", err.fieldErrors.retry_after_seconds);
      return reply.status(err.status).send(err.toJSON());
    }
    const status = err.statusCode ?? 500;
    if (status < 500) return identityError(reply, status, "bad_request", err.message);
    req.log.error({ err }, "unhandled error");
    return identityError(reply, 500, "unexpected_error", "An unexpected error has occurred");
  });
  app.setNotFoundHandler((_req, reply) => identityError(reply, 404, "not_found", "Not found"));
  registerHealth(app, database);
  // Every non-GET call made while impersonating is audited, pages and JSON calls alike.
  registerImpersonationWriteAudit(app, ctx);
  await app.register(identityApi, { ctx });
  await app.register(identityPages, { ctx });

  // A cached key is the same object on every call: its identity is computed once.
  const identityOf = (found: ValidatedApiKey | null): ApiKeyIdentity | null => {
    if (!found) return null;
    let identity = identities.get(found);
    if (!identity) {
      identity = keyIdentity(found);
      identities.set(found, identity);
    }
    return identity;
  };
  const publicKey = createPublicKey(keys.publicPem);
  const gateway: IdentityGateway = {
    issuer: config.authPublicUrl,
    verificationKey: async () => publicKey,
    listOrganizationUsers: (orgId) => ctx.directory.listOrganizationUsers(orgId),
    listOrganizationAdmins: (orgId) => ctx.directory.listOrganizationAdmins(orgId),
    findOrganizationUser: (orgId, email) => ctx.directory.findOrganizationUser(orgId, email),
    findOrganization: async (orgId) => {
      const o = await ctx.directory.findOrganization(orgId);
      return o ? { org_id: o.org_id, name: o.name } : null;
    },
    // A cached key is answered without a promise (see ApiKeyValidation.validate).
    validateApiKey: (token) => {
      const found = apiKeys.validate(token);
      return found instanceof Promise ? found.then(identityOf) : identityOf(found);
    },
    isOperator: (userId) => isProviderOperator(db, userId),
    tokenVersion: (userId) => currentTokenVersion(db, userId),
    watchTokenVersions: versionWatch.watch,
  };

  app.addHook("onClose", async () => mailer.close());
  // The pending "last used" times are written before the database closes.
  app.addHook("onClose", apiKeys.close);
  app.addHook("onClose", versionWatch.close);
  return { app, gateway, admin: createIdentityAdmin(db, auth), operators: operatorRoles(db), auth, ctx };
}

export type IdentityService = Awaited<ReturnType<typeof createIdentityService>>;
