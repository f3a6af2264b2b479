/**
 * Where an operator command runs. On the embedded database with a server running on its data
 * directory: through that server's operator API — opening the directory beside the server would
 * lose the change and can corrupt the database. Otherwise (PostgreSQL, or no server running) on
 * the database itself, which the data directory's lock keeps to this one process meanwhile.
 */
import type { Config } from "../platform/config";
import { openProduct } from "./open-product";
import { type OperatorCommand, runOperatorCommand } from "./operator-commands";
import { serverOperatorBackend } from "./operator-server";
import { findRunningServer, serverCaller } from "./running-server";

/** Runs the command and answers its exit status. */
export async function runOperator(config: Config, cmd: OperatorCommand): Promise<number> {
  const running = config.database.kind === "pglite" ? findRunningServer(config.database.dataDir) : null;
  if (running) return runOperatorCommand(cmd, serverOperatorBackend(serverCaller(running)));
  // The database's side loads only on this path: through a server it is not needed.
  const { databaseOperatorBackend } = await import("./operator-database");
  const product = await openProduct(config);
  try {
    return await runOperatorCommand(cmd, databaseOperatorBackend(product));
  } finally {
    await product.close();
  }
}
