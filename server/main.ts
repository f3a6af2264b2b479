// Only what reads the command line is loaded up front: each command's code (the product, the
// HTTP server, the database driver) is imported when that command runs, so a command that goes
// through a running server starts in about a second instead of loading the whole server first.
import { openProduct } from "./cli/open-product";
import { OPERATOR_COMMANDS, parseOperatorCommand } from "./cli/operator-commands";
import {
  INGEST_KEY_USAGE,
  type IngestKeyCommand,
  METERING_USAGE,
  parseIngestKeyArgs,
  parseMeteringArgs,
  parseSeedArgs,
} from "./metering/shared/cli-args";
import { EVENTS_USAGE } from "./metering/shared/partitions-cli";
import { type Config, ConfigError, loadConfig } from "./platform/config";

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
async function ingestKey(config: Config, cmd: IngestKeyCommand): Promise<number | undefined> {
  const [{ DEFAULT_INGEST_KEY_NAME }, { findRunningServer }, keys] = await Promise.all([
    import("./api/operator/ingest-keys"),
    import("./cli/running-server"),
    import("./metering/ingestion/ingest-key-cli"),
  ]);
  const { databaseBackend, IngestKeyError, runIngestKeyCommand, serverBackend } = keys;
  const opts = { apiUrl: config.apiPublicUrl, defaultName: DEFAULT_INGEST_KEY_NAME };
  const running = config.database.kind === "pglite" ? findRunningServer(config.database.dataDir) : null;
  try {
    if (running) {
      await runIngestKeyCommand(cmd, serverBackend(running), opts);
      return undefined;
    }
    const product = await openProduct(config);
    try {
      await runIngestKeyCommand(cmd, databaseBackend(product.database.db), opts);
    } finally {
      await product.close();
    }
    return undefined;
  } catch (err) {
    if (!(err instanceof IngestKeyError)) throw err;
    console.error(err.message);
    return 1;
  }
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * A command of the command line: how its words are read (a refusal exits with status 2 before
 * any configuration is loaded) and what it does with them; a number `run` answers is the exit status.
 */
type Command<T> = {
  parse(args: readonly string[]): Parsed<T>;
  run(config: Config, args: T): Promise<unknown>;
};

const command = <T>(c: Command<T>): Command<unknown> => c as Command<unknown>;
const noArgs = (): Parsed<null> => ({ ok: true, value: null });

/** Applies the migrations (opening the product does) and closes again. */
async function migrate(config: Config) {
  const product = await openProduct(config);
  await product.close();
  console.log("Migrations applied.");
  return 0;
}

/** Every command, by its first word. */
const COMMANDS: Record<string, Command<unknown>> = {
  serve: command({ parse: noArgs, run: async (config) => (await import("./serve")).serve(config) }),
  migrate: command({ parse: noArgs, run: migrate }),
  seed: command({
    parse: parseSeedArgs,
    run: async (config, args) => (await import("./cli/seed")).runSeed(config, args),
  }),
  "ingest-key": command({ parse: parseIngestKeyArgs, run: ingestKey }),
  usage: command({
    parse: (args) => {
      const parsed = parseMeteringArgs("usage", args);
      if (!parsed.ok) return parsed;
      return parsed.value.kind === "import" ? { ok: true, value: parsed.value } : { ok: false, error: USAGE };
    },
    run: async (config, cmd) => (await import("./cli/usage-import")).runUsageImport(config, cmd),
  }),
  ...Object.fromEntries(
    OPERATOR_COMMANDS.map((name) => [
      name,
      command({
        parse: (args) => parseOperatorCommand(name, args) ?? { ok: false, error: USAGE },
        run: async (config, cmd) => (await import("./cli/operator-run")).runOperator(config, cmd),
      }),
    ]),
  ),
};

/** Refuses the command line: the reason on stderr, exit status 2. */
function refuseArgs(message: string) {
  console.error(message);
  process.exitCode = 2;
}

async function run(name: string | undefined) {
  if (!name || name === "help" || name === "--help") {
    console.log(USAGE);
    return;
  }
  const found = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!found) return refuseArgs(`Unknown command "${name}".\n\n${USAGE}`);
  const parsed = found.parse(process.argv.slice(3));
  if (!parsed.ok) return refuseArgs(parsed.error);
  const status = await found.run(loadConfig(), parsed.value);
  if (typeof status === "number") process.exitCode = status;
}

run(process.argv[2]).catch(fail);
