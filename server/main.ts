import { DEFAULT_INGEST_KEY_NAME } from "./api/operator-ingest-keys";
import { buildProduct } from "./app";
import { OPERATOR_COMMANDS, parseOperatorCommand } from "./cli/operator-commands";
import { runOperator } from "./cli/operator-run";
import { findRunningServer } from "./cli/running-server";
import { runSeed } from "./cli/seed";
import { runUsageImport } from "./cli/usage-import";
import {
  INGEST_KEY_USAGE,
  type IngestKeyCommand,
  METERING_USAGE,
  parseIngestKeyArgs,
  parseMeteringArgs,
  parseSeedArgs,
} from "./metering/cli";
import { EVENTS_USAGE } from "./metering/events-cli";
import {
  databaseBackend,
  IngestKeyError,
  runIngestKeyCommand,
  serverBackend,
} from "./metering/ingest-key-cli";
import { type Config, ConfigError, loadConfig } from "./platform/config";
import { createLogger } from "./platform/logger";
import { serve } from "./serve";

const USAGE = `Usage: tsx server/main.ts <command>

Commands:
  serve     apply migrations, seed the demo on a new embedded database, and serve
            the console + product API (PORT) and the identity service (AUTH_PORT)
  migrate   apply database migrations and exit
  operator grant|revoke <email>
            make a user a provider operator (may impersonate users), or stop that
  workspace restore <workspace uuid>
            bring back a deleted workspace (its members regain access)
  audit purge
            delete audit log entries older than AUDIT_RETENTION_DAYS (default 400); a serving
            process also does this once a day
  price set --operation <op> --eval-type <type> --unit-price <usd> [--modality <m>]
            [--rule-metric eval|prompt] [--org <org>] [--valid-from <ISO>]
            set a price rule (global unless --org); it replaces the open rule for the same dimensions
  price awaiting --org <org>
            list the organization's usage awaiting pricing (no rule matched it) per dimension,
            oldest first; setting a price that covers it prices it once
${METERING_USAGE}
${EVENTS_USAGE}
${INGEST_KEY_USAGE}

On the embedded database, while a server runs on DATA_DIR, the operator commands (operator,
workspace, audit, price, cycle, payment, group, events, ingest-key, usage import, seed) go through
that server.

Configuration comes from the environment; see .env.example.`;

/** One clear line for start-up failures a user can fix; a stack only for our own bugs. */
function fail(err: unknown): never {
  if (err instanceof ConfigError) console.error(err.message);
  else if ((err as NodeJS.ErrnoException)?.code === "EADDRINUSE") {
    const e = err as NodeJS.ErrnoException & { port?: number };
    console.error(
      `Cannot start: port ${e.port ?? ""} is already in use (set PORT / AUTH_PORT to free ports).`,
    );
  } else if ((err as NodeJS.ErrnoException)?.code === "EACCES") {
    console.error(
      `Cannot start: not allowed to listen on ${(err as { port?: number }).port ?? "that port"}.`,
    );
  } else console.error(err);
  process.exit(1);
}

/** ingest-key create|list|revoke: through the running server on PGlite, else on the database. */
async function ingestKey(config: Config, cmd: IngestKeyCommand) {
  const opts = { apiUrl: config.apiPublicUrl, defaultName: DEFAULT_INGEST_KEY_NAME };
  const running = config.database.kind === "pglite" ? findRunningServer(config.database.dataDir) : null;
  try {
    if (running) return await runIngestKeyCommand(cmd, serverBackend(running), opts);
    const product = await buildProduct(
      config,
      createLogger(config.logLevel === "info" ? "warn" : config.logLevel),
    );
    try {
      await runIngestKeyCommand(cmd, databaseBackend(product.database.db), opts);
    } finally {
      await product.close();
    }
  } catch (err) {
    if (!(err instanceof IngestKeyError)) throw err;
    console.error(err.message);
    process.exitCode = 1;
  }
}

const METERING_COMMANDS = ["usage"];

/** Refuses the command line: the reason on stderr, exit status 2. */
function refuseArgs(message: string) {
  console.error(message);
  process.exitCode = 2;
}

async function run(command: string | undefined) {
  if (!command || command === "help" || command === "--help") {
    console.log(USAGE);
    return;
  }
  if (
    !["serve", "migrate", "seed", "ingest-key", ...OPERATOR_COMMANDS, ...METERING_COMMANDS].includes(command)
  ) {
    return refuseArgs(`Unknown command "${command}".\n\n${USAGE}`);
  }
  const args = process.argv.slice(3);
  const operatorArgs = parseOperatorCommand(command, args);
  const seedArgs = command === "seed" ? parseSeedArgs(args) : null;
  const metering = METERING_COMMANDS.includes(command) ? parseMeteringArgs(command, args) : null;
  const ingestKeyArgs = command === "ingest-key" ? parseIngestKeyArgs(args) : null;
  // At most one of them is parsed: the one of this command.
  for (const parsed of [operatorArgs, seedArgs, metering, ingestKeyArgs])
    if (parsed && !parsed.ok) return refuseArgs(parsed.error);
  const config = loadConfig();
  if (command === "serve") return serve(config);
  if (ingestKeyArgs?.ok) return ingestKey(config, ingestKeyArgs.value);
  if (operatorArgs?.ok) {
    process.exitCode = await runOperator(config, operatorArgs.value);
    return;
  }
  if (seedArgs?.ok) {
    process.exitCode = await runSeed(config, seedArgs.value);
    return;
  }
  if (metering?.ok && metering.value.kind === "import") {
    process.exitCode = await runUsageImport(config, metering.value);
    return;
  }
  const product = await buildProduct(
    config,
    createLogger(config.logLevel === "info" ? "warn" : config.logLevel),
  );
  try {
    if (command === "migrate") console.log("Migrations applied.");
  } finally {
    await product.close();
  }
}

run(process.argv[2]).catch(fail);
