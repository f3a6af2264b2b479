import type { FastifyBaseLogger } from "fastify";
import { createIngestKeyVerifier } from "../metering/ingest-keys";
import type { Config } from "../platform/config";
import type { Database } from "../platform/database";
import { errorBody, installApiErrors } from "../platform/errors";
import { registerHealth } from "../platform/health";
import { acceptEmptyJsonBodies, allowOrigins, createHttpApp } from "../platform/http";
import type { IdentityGateway } from "../platform/identity-gateway";
import { consoleCsp } from "../platform/security-headers";
import { refuseUnstorableText } from "../platform/text-input";
import { registerAccounts } from "./accounts";
import { registerBillingCycles } from "./billing-cycles";
import { registerConsoleFiles } from "./console-files";
import { registerOpenApi } from "./openapi";
import { registerOperator } from "./operator";
import { registerOperatorIngestKeys } from "./operator-ingest-keys";
import { registerOrganizationUsers } from "./organization-users";
import { createAuthenticator } from "./principal";
import { installApiRateLimits } from "./rate-limit";
import { createRouter } from "./route";
import { registerUsageIngest } from "./usage-ingest";
import { registerUsageQueries } from "./usage-queries";
import { registerWorkspaceMembers } from "./workspace-members";
import { createWorkspaceStore } from "./workspace-store";
import { registerWorkspaces } from "./workspaces";
import { registerMyWorkspace } from "./workspaces-mine";

/** The product API (/v1) plus the console's static files on one origin. */
export async function createApiService(
  config: Config,
  database: Database,
  gateway: IdentityGateway,
  logger: FastifyBaseLogger,
  /** The backend API key, with which operators' tools (the CLI) reach this server. */
  opts: { operatorKey?: string } = {},
) {
  const app = createHttpApp(logger.child({ component: "api" }), {
    trustProxy: config.trustProxy,
    htmlCsp: consoleCsp([config.apiPublicUrl, config.authPublicUrl]),
  });
  await allowOrigins(app, config.allowedOrigins, ["Content-Type", "Authorization", "X-API-Key"]);
  installApiErrors(app);
  acceptEmptyJsonBodies(app);
  registerHealth(app, database);
  const workspaces = createWorkspaceStore(database.db);
  // Batch ingestion rejects an event with such text on its own and keeps the others.
  refuseUnstorableText(app, errorBody, { ownBodyCheck: ["/v1/usage/events"] });
  const authenticate = createAuthenticator(gateway);
  const router = createRouter(
    app,
    installApiRateLimits(app, database.db, config.apiRateLimits, authenticate),
  );
  const deps = { gateway, workspaces };
  registerAccounts(router, deps);
  registerOrganizationUsers(router, deps);
  registerMyWorkspace(router, deps);
  registerWorkspaces(router, deps);
  registerWorkspaceMembers(router, deps);
  registerOperator(router, deps);
  const ingestKeys = createIngestKeyVerifier(database.db);
  const operatorKey = opts.operatorKey ?? config.backendApiKey;
  const ingest = { db: database.db, gateway, ingestKeys, ...(operatorKey ? { operatorKey } : {}) };
  registerOperatorIngestKeys(router, ingest);
  registerUsageIngest(router, ingest);
  registerUsageQueries(router, { db: database.db });
  registerBillingCycles(router, { db: database.db });
  registerOpenApi(router, config.apiPublicUrl);
  await registerConsoleFiles(app, config);
  return { app, workspaces };
}
