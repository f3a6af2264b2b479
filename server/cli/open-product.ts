import type { Config } from "../platform/config";

/**
 * The product on the configured database, for a command that works on the database itself. The
 * product's code (HTTP server, identity, database driver) is imported here, on that path only: a
 * command that goes through a running server never loads it, and starts in about a second.
 */
export async function openProduct(config: Config) {
  const [{ buildProduct }, { createLogger }] = await Promise.all([
    import("../app"),
    import("../platform/logger"),
  ]);
  // A command prints its own lines; the product's info logs would bury them.
  return buildProduct(config, createLogger(config.logLevel === "info" ? "warn" : config.logLevel));
}
