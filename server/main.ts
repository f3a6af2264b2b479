import { z } from "zod";
import { restoreError } from "./api/operator";
import { buildProduct } from "./app";
import { setOperator } from "./identity/impersonation/operators";
import { describeRule, parsePriceSetArgs, setPriceRule } from "./metering/prices";
import { type Config, ConfigError, loadConfig } from "./platform/config";
import { createLogger } from "./platform/logger";
import { DEMO_USERS } from "./seed";

const USAGE = `Usage: tsx server/main.ts <command>

Commands:
  serve     apply migrations, seed the demo on a new embedded database, and serve
            the console + product API (PORT) and the identity service (AUTH_PORT)
  migrate   apply database migrations and exit
  seed      create the demo organization "Acme AI" if it does not exist, and exit
  operator grant|revoke <email>
            make a user a provider operator (may impersonate users), or stop that
  workspace restore <workspace uuid>
            bring back a deleted workspace (its members regain access)
  price set --operation <op> --eval-type <type> --unit-price <usd> [--modality <m>]
            [--rule-metric eval|prompt] [--org <organization uuid>] [--valid-from <ISO>]
            set a price rule (global unless --org); it replaces the open rule for the same dimensions

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

function printSignIn(config: Config, password: string | null, note: string) {
  const lines = [
    "",
    "  Eval Console is running",
    `    Console + API   ${config.publicUrl}`,
    `    Identity        ${config.authPublicUrl}`,
    `    Database        ${config.database.kind === "pglite" ? `PGlite in ${config.database.dataDir}` : "PostgreSQL (DATABASE_URL)"}`,
    "",
    `  Demo sign-in (${note}):`,
    ...DEMO_USERS.map(
      (u) =>
        `    ${u.email.padEnd(20)} ${u.role === "Admin" ? "administrator" : u.workspaces.length ? "member" : "member, no workspace"}`,
    ),
    `    password: ${password ?? "(set when the demo was first created; `npm run seed` prints a new one only on a new database)"}`,
    "",
  ];
  console.log(lines.join("\n"));
}

async function serve(config: Config) {
  const logger = createLogger(config.logLevel);
  const product = await buildProduct(config, logger);
  const shouldSeed =
    config.seedDemo === "always" || (config.seedDemo === "auto" && config.database.kind === "pglite");
  let password: string | null = config.demoPassword ?? null;
  let note = "DEMO_PASSWORD";
  if (shouldSeed) {
    const result = await product.seed(config.database.kind === "postgres");
    if (result.created) {
      password = result.password;
      note = result.generatedPassword
        ? "generated now; it is not shown again"
        : config.demoPassword
          ? "DEMO_PASSWORD"
          : "documented default";
    } else if (!config.demoPassword && config.database.kind === "pglite") {
      password = (await import("./seed")).DEFAULT_DEMO_PASSWORD;
      note = "documented default, unless changed";
    }
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    await product.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  try {
    await product.identity.app.listen({ host: config.host, port: config.authPort });
    await product.api.app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await product.close();
    throw err;
  }
  printSignIn(config, password, note);
}

async function run(command: string | undefined) {
  if (!command || command === "help" || command === "--help") {
    console.log(USAGE);
    return;
  }
  if (!["serve", "migrate", "seed", "operator", "workspace", "price"].includes(command)) {
    console.error(`Unknown command "${command}".\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const [action, email] = process.argv.slice(3);
  if (command === "operator" && (!email || (action !== "grant" && action !== "revoke"))) {
    console.error(`Usage: tsx server/main.ts operator grant|revoke <email>`);
    process.exitCode = 2;
    return;
  }
  if (command === "workspace" && (action !== "restore" || !email || !z.uuid().safeParse(email).success)) {
    console.error(`Usage: tsx server/main.ts workspace restore <workspace uuid>`);
    process.exitCode = 2;
    return;
  }
  const priceArgs = command === "price" ? parsePriceSetArgs(process.argv.slice(3)) : null;
  if (priceArgs && !priceArgs.ok) {
    console.error(priceArgs.error);
    process.exitCode = 2;
    return;
  }
  const config = loadConfig();
  if (command === "serve") return serve(config);
  const product = await buildProduct(
    config,
    createLogger(config.logLevel === "info" ? "warn" : config.logLevel),
  );
  try {
    if (command === "migrate") console.log("Migrations applied.");
    else if (command === "seed") {
      const r = await product.seed(config.database.kind === "postgres" && !config.demoPassword);
      if (r.created)
        console.log(
          `Demo organization created. Password for ${DEMO_USERS.map((u) => u.email).join(", ")}: ${r.password}`,
        );
      else console.log(`Nothing to do: ${r.reason}.`);
    } else if (command === "workspace" && email) {
      const r = await product.api.workspaces.restoreWorkspace(email, {
        userId: null,
        email: null,
        via: "operator",
        source: "cli",
      });
      if (r.status === "restored") console.log(`Workspace "${r.workspace.name}" (${email}) is restored.`);
      else {
        console.error(restoreError(r).message);
        process.exitCode = 1;
      }
    } else if (priceArgs?.ok) {
      console.log(describeRule(await setPriceRule(product.database.db, priceArgs.input)));
    } else if (command === "operator" && email) {
      const grant = action === "grant";
      if (!(await setOperator(product.database.db, email, grant))) {
        console.error(`No user with email ${email}.`);
        process.exitCode = 1;
      } else
        console.log(
          grant ? `${email} is now a provider operator.` : `${email} is no longer a provider operator.`,
        );
    }
  } finally {
    await product.close();
  }
}

run(process.argv[2]).catch(fail);
