// The serve command: check the ports, build the product, seed the demo on a first embedded start,
// listen, print the sign-in (and where a new demo's ingestion key is kept), and shut down cleanly
// on a signal.
import { createServer } from "node:net";
import { buildProduct } from "./app";
import { startBackgroundJobs } from "./background-jobs";
import { recordRunningServer } from "./cli/running-server";
import { createDemoIngestKey, demoEvents, saveDemoIngestKey, seedUsage } from "./demo-cli";
import { type Config, ConfigError } from "./platform/config";
import { describeHolder, lockHolder } from "./platform/data-dir-lock";
import { createLogger } from "./platform/logger";
import { maintainTables, scheduleTableMaintenance } from "./platform/table-maintenance";
import type { SeedResult } from "./seed";
import { demoSignIn, signInLines } from "./sign-in";

/** Fails fast (as listen would) when a port is taken, before a long first-start seed. */
function assertPortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (err: NodeJS.ErrnoException & { port?: number }) => {
      err.port = port;
      reject(err);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The serve command: the whole product, seeding the demo on a first embedded start. */
export async function serve(config: Config) {
  // A second server on the same data directory is refused before anything else: naming the one
  // that runs says more than "port in use" (openDatabase takes the lock itself, atomically).
  if (config.database.kind === "pglite") {
    const holder = lockHolder(config.database.dataDir);
    if (holder) throw new ConfigError(describeHolder(config.database.dataDir, holder));
  }
  await assertPortFree(config.host, config.authPort);
  await assertPortFree(config.host, config.port);
  const logger = createLogger(config.logLevel);
  const product = await buildProduct(config, logger, undefined, { role: "server" });
  const shouldSeed =
    config.seedDemo === "always" || (config.seedDemo === "auto" && config.database.kind === "pglite");
  let seeded: SeedResult | null = null;
  let demoKeyLine: string | null = null;
  if (shouldSeed) {
    seeded = await product.seed(config.database.kind === "postgres");
    await seedUsage(product, demoEvents(), undefined, false);
    if (seeded.created) demoKeyLine = saveDemoIngestKey(config.dataDir, await createDemoIngestKey(product));
  }

  // The embedded database has no autovacuum (platform/table-maintenance): its tables are analyzed
  // here, by its one writer, before the first visit, then vacuumed and analyzed every minute.
  if (config.database.kind === "pglite") {
    // Slower plans, not a failure: the server starts anyway.
    await maintainTables(product.database.db, logger, { atStart: true });
    scheduleTableMaintenance(product.database.db, logger);
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    forgetServer();
    await stopJobs();
    await product.close();
    process.exit(0);
  };
  let forgetServer = () => {};
  let stopJobs = async () => {};
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  try {
    await product.identity.app.listen({ host: config.host, port: config.authPort });
    await product.api.app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await product.close();
    throw err;
  }
  // The CLI's ingest-key commands reach this server instead of opening the embedded database.
  if (config.database.kind === "pglite") {
    const host = ["0.0.0.0", "::", ""].includes(config.host) ? "127.0.0.1" : config.host;
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
    product.database.lock?.update({ url });
    forgetServer = recordRunningServer(config.database.dataDir, {
      url,
      operatorKey: product.identity.ctx.backendApiKey,
    });
    process.on("exit", () => forgetServer());
  }
  // Background jobs, the daily retention tasks among them, by the server (the one writer).
  stopJobs = await startBackgroundJobs(product.database.db, config, logger);
  console.log(signInLines(config, demoSignIn(config, seeded), demoKeyLine).join("\n"));
}
