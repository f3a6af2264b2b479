import type { FastifyBaseLogger } from "fastify";
import { createApiService } from "./api/service";
import { createDemoSeeding } from "./demo-seeding";
import { createIdentityService } from "./identity/service";
import type { Config } from "./platform/config";
import { type Database, openDatabase } from "./platform/database";
import { type SeedResult, seedDemo } from "./seed";

export type Product = Awaited<ReturnType<typeof buildProduct>>;

/**
 * Wires the product from its parts: database → identity service → product API (which reaches
 * identity only through the gateway). Nothing listens yet; tests use `inject`.
 */
export async function buildProduct(
  config: Config,
  logger: FastifyBaseLogger,
  database?: Database,
  /** Who holds an embedded data directory's lock: "server", or (default) this command line. */
  opts: { role?: string } = {},
) {
  const db =
    database ??
    (await openDatabase(
      config.database.kind === "pglite"
        ? {
            kind: "pglite",
            dataDir: config.database.dataDir,
            readTimeoutMs: config.database.readTimeoutMs,
            ...(opts.role ? { role: opts.role } : {}),
          }
        : config.database,
    ));
  await db.migrate();
  const identity = await createIdentityService(config, db, logger);
  const api = await createApiService(config, db, identity.gateway, logger, {
    operatorKey: identity.ctx.backendApiKey,
    operatorRoles: identity.operators,
    demoSeeding: createDemoSeeding({
      db: db.db,
      identity: identity.admin,
      demoPassword: config.demoPassword,
      generatePassword: config.database.kind === "postgres" && !config.demoPassword,
    }),
  });

  const seed = (generate: boolean): Promise<SeedResult> =>
    seedDemo(
      { identity: identity.admin, workspaces: api.workspaces },
      { password: config.demoPassword, generate },
    );

  return {
    config,
    database: db,
    identity,
    api,
    seed,
    async close() {
      await Promise.allSettled([identity.app.close(), api.app.close()]);
      await db.close();
    },
  };
}
