/**
 * Where an operator command runs. On the embedded database with a server running on its data
 * directory: through that server's operator API — opening the directory beside the server would
 * lose the change and can corrupt the database. Otherwise (PostgreSQL, or no server running) on
 * the database itself, which the data directory's lock keeps to this one process meanwhile.
 */
import { buildProduct } from "../app";
import type { Config } from "../platform/config";
import { createLogger } from "../platform/logger";
import { type OperatorCommand, runOperatorCommand } from "./operator-commands";
import { databaseOperatorBackend } from "./operator-database";
import { serverOperatorBackend } from "./operator-server";
import { findRunningServer, serverCaller } from "./running-server";

/** Runs the command and answers its exit status. */
export async function runOperator(config: Config, cmd: OperatorCommand): Promise<number> {
  const running = config.database.kind === "pglite" ? findRunningServer(config.database.dataDir) : null;
  if (running) return runOperatorCommand(cmd, serverOperatorBackend(serverCaller(running)));
  const product = await buildProduct(
    config,
    createLogger(config.logLevel === "info" ? "warn" : config.logLevel),
  );
  try {
    return await runOperatorCommand(cmd, databaseOperatorBackend(product));
  } finally {
    await product.close();
  }
}
