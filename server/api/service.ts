import type { FastifyBaseLogger } from "fastify";
import { createBudgetNotifier, createSendMail, registerBudgetNotifier } from "../metering/budgets/notify";
import { createIngestKeyVerifier } from "../metering/ingestion/ingest-keys";
import type { Config } from "../platform/config";
import type { Database } from "../platform/database";
import { errorBody, installApiErrors } from "../platform/errors";
import { registerHealth } from "../platform/health";
import { acceptEmptyJsonBodies, allowOrigins, createHttpApp } from "../platform/http";
import type { IdentityGateway, OperatorRoles } from "../platform/identity-gateway";
import { consoleCsp } from "../platform/security-headers";
import { refuseUnstorableText } from "../platform/text-input";
import { createTokenVersionWatch } from "../platform/token-revocation";
import { webhookKeyring } from "../webhooks/secrets";
import { createWebhookWorker } from "../webhooks/worker";
import { cacheWorkspaces } from "../workspaces/cache";
import { createWorkspaceStore } from "../workspaces/store";
import { accountRoutes } from "./accounts";
import { allowanceRoutes } from "./allowance";
import { openApiDocumentRoute, registerApiDocs } from "./api-docs";
import { auditLogRoutes } from "./audit-log";
import { billingCycleRoutes } from "./billing-cycles";
import { budgetRoutes } from "./budgets";
import { registerConsoleFiles } from "./console-files";
import { evalRunOutcomeRoutes } from "./eval-run-outcomes";
import { evalRunRoutes } from "./eval-runs";
import { operatorAuditRoutes } from "./operator/audit";
import { operatorBillingRoutes } from "./operator/billing";
import { operatorGroupRoutes } from "./operator/groups";
import { operatorIngestKeyRoutes } from "./operator/ingest-keys";
import { operatorJobRoutes } from "./operator/jobs";
import { operatorOperatorRoutes } from "./operator/operators";
import { operatorOrganizationRoutes } from "./operator/organizations";
import { operatorPartitionRoutes } from "./operator/partitions";
import { operatorPriceRoutes } from "./operator/prices";
import { type DemoSeeding, operatorSeedRoutes } from "./operator/seed";
import { operatorUsageImportRoutes, USAGE_IMPORT_PATH } from "./operator/usage-import";
import { operatorRoutes } from "./operator/workspaces";
import { organizationUserRoutes } from "./organization-users";
import { createAuthenticator } from "./principal";
import { installApiRateLimits } from "./rate-limit";
import { createReadGate } from "./read-gate";
import { reservationRoutes } from "./reservations";
import { installApiRouteHooks } from "./route-hooks";
import { usageCompletenessRoutes } from "./usage-completeness";
import { usageExplainRoutes } from "./usage-explain";
import { usageIngestRoutes } from "./usage-ingest";
import { usageQueryRoutes } from "./usage-queries";
import { usageReportRoutes } from "./usage-report";
import { webhookEndpointRoutes } from "./webhook-endpoints";
import { workspaceMemberRoutes } from "./workspace-members";
import { workspaceRoutes } from "./workspaces";
import { myWorkspaceRoutes } from "./workspaces-mine";

/**
 * What every API process sends in the background: webhook deliveries and budget alert emails.
 * Answers what the webhook routes share with the worker, and the worker (tests drive it).
 */
function startSenders(
  app: ReturnType<typeof createHttpApp>,
  config: Config,
  database: Database,
  gateway: IdentityGateway,
  logger: FastifyBaseLogger,
) {
  // Webhook deliveries are made from every API process; each claims different due deliveries.
  const webhooks = {
    db: database.db,
    keyring: webhookKeyring(config, database),
    allowPrivateUrls: config.webhooks.allowPrivateUrls,
    sendRateLimitPerOrg: config.webhooks.sendRateLimitPerOrg,
  };
  const webhookWorker = createWebhookWorker({
    ...webhooks,
    retryBaseSeconds: config.webhooks.retryBaseSeconds,
    limits: config.webhooks,
    ...(database.listen ? { listen: database.listen } : {}),
    log: app.log,
  });
  app.addHook("onReady", async () => webhookWorker.start());
  app.addHook("onClose", async () => webhookWorker.stop());
  // Budget alert emails, sent after the transactions that recorded the alerts (ingestion, budget
  // changes, billing cycles) committed; SMTP_URL as the identity service's emails, else the log.
  const budgetMail = createSendMail({ smtpUrl: config.smtpUrl, from: config.emailFrom }, logger);
  const budgetNotifier = createBudgetNotifier(database.db, {
    gateway,
    send: budgetMail.send,
    consoleUrl: `${config.publicUrl}/`,
    logger,
  });
  registerBudgetNotifier(database.db, budgetNotifier);
  app.addHook("onClose", async () => {
    await budgetNotifier.close();
    budgetMail.close();
  });
  return { webhooks, webhookWorker };
}

/** The product API (/v1) plus the console's static files on one origin. */
export async function createApiService(
  config: Config,
  database: Database,
  gateway: IdentityGateway,
  logger: FastifyBaseLogger,
  opts: {
    /** The backend API key, with which operators' tools (the CLI) reach this server. */
    operatorKey?: string;
    /** The provider operators' role, where the identity service runs in this process. */
    operatorRoles?: OperatorRoles;
    /** The demo seed (server/demo-seeding.ts), where the identity service runs in this process. */
    demoSeeding?: DemoSeeding;
  } = {},
) {
  const app = createHttpApp(logger.child({ component: "api" }), {
    trustProxy: config.trustProxy,
    htmlCsp: consoleCsp([config.apiPublicUrl, config.authPublicUrl]),
  });
  await allowOrigins(app, config.allowedOrigins, ["Content-Type", "Authorization", "X-API-Key"]);
  installApiErrors(app);
  acceptEmptyJsonBodies(app);
  registerHealth(app, database);
  // The organizations' workspaces and names in memory, dropped on every change: in this process
  // at once, in the others through NOTIFY on the token-version channel.
  const changes = createTokenVersionWatch(database.db, database.listen);
  const caches = cacheWorkspaces(database.db, createWorkspaceStore(database.db), gateway, changes.watch);
  app.addHook("onClose", async () => {
    await caches.close();
    await changes.close();
  });
  const workspaces = caches.workspaces;
  const { webhooks, webhookWorker } = startSenders(app, config, database, gateway, logger);
  // Batch ingestion and usage import reject an event with such text on its own and keep the
  // others (and the import's body is a stream, read by its route).
  refuseUnstorableText(app, (_code, message) => errorBody("invalid_request", message), {
    ownBodyCheck: ["/v1/usage/events", USAGE_IMPORT_PATH],
  });
  const authenticate = installApiRateLimits(
    app,
    database.rateLimits,
    config.apiRateLimits,
    createAuthenticator(gateway),
  );
  const deps = { gateway: caches.gateway, workspaces };
  const operatorKey = opts.operatorKey ?? config.backendApiKey;
  const ingest = {
    db: database.db,
    gateway,
    authenticate,
    ingestKeys: createIngestKeyVerifier(database.db),
    usageMaxAgeDays: config.usageMaxAgeDays,
    ...(operatorKey ? { operatorKey } : {}),
  };
  // Every operator action (the console's operator area, and the CLI while a server runs on the
  // embedded database): the same guard and credentials as the ingestion keys.
  const operator = {
    db: database.db,
    gateway: caches.gateway,
    authenticate,
    workspaces,
    auditRetentionDays: config.auditRetentionDays,
    usageMaxAgeDays: config.usageMaxAgeDays,
    ...(operatorKey ? { operatorKey } : {}),
  };
  await app.register(
    async (v1) => {
      await registerApiDocs(v1, config.apiPublicUrl);
      // The routes in a scope of their own: the shared hooks leave the docs page's files alone.
      await v1.register(async (routes) => {
        installApiRouteHooks(routes, authenticate);
        await routes.register(accountRoutes, deps);
        await routes.register(organizationUserRoutes, deps);
        await routes.register(myWorkspaceRoutes, deps);
        await routes.register(workspaceRoutes, deps);
        await routes.register(workspaceMemberRoutes, deps);
        await routes.register(operatorRoutes, operator);
        await routes.register(operatorIngestKeyRoutes, ingest);
        await routes.register(operatorOrganizationRoutes, operator);
        await routes.register(operatorPriceRoutes, operator);
        await routes.register(operatorJobRoutes, operator);
        if (opts.operatorRoles)
          await routes.register(operatorOperatorRoutes, { ...operator, roles: opts.operatorRoles });
        await routes.register(operatorBillingRoutes, operator);
        await routes.register(operatorGroupRoutes, operator);
        await routes.register(operatorPartitionRoutes, operator);
        await routes.register(operatorAuditRoutes, operator);
        await routes.register(operatorUsageImportRoutes, operator);
        if (opts.demoSeeding)
          await routes.register(operatorSeedRoutes, { ...operator, seeding: opts.demoSeeding });
        await routes.register(usageIngestRoutes, {
          ...ingest,
          limiter: database.rateLimits,
          rateLimits: config.ingestRateLimits,
        });
        // One gate for the organization's expensive reads, whichever route they come through.
        const reads = createReadGate();
        await routes.register(usageQueryRoutes, {
          db: database.db,
          readDb: database.readDb,
          reads,
          workspaces,
        });
        await routes.register(usageReportRoutes, {
          db: database.db,
          readDb: database.readDb,
          reads,
          workspaces,
        });
        await routes.register(usageExplainRoutes, {
          db: database.db,
          readDb: database.readDb,
          reads,
          workspaces,
        });
        await routes.register(billingCycleRoutes, { db: database.db, readDb: database.readDb });
        await routes.register(budgetRoutes, { db: database.db });
        await routes.register(reservationRoutes, { db: database.db });
        await routes.register(allowanceRoutes, { db: database.db, workspaces });
        await routes.register(usageCompletenessRoutes, { db: database.db });
        await routes.register(evalRunRoutes, { db: database.db, readDb: database.readDb, workspaces });
        await routes.register(evalRunOutcomeRoutes, { db: database.db, readDb: database.readDb, workspaces });
        // The primary: an administrator reads the entries of the changes they just made.
        await routes.register(auditLogRoutes, { db: database.db });
        await routes.register(webhookEndpointRoutes, { ...webhooks, limiter: database.rateLimits });
        await routes.register(openApiDocumentRoute);
      });
    },
    { prefix: "/v1" },
  );
  await registerConsoleFiles(app, config);
  return { app, workspaces, webhookWorker };
}
