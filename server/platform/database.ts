import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import * as schema from "../db/schema";
import { ConfigError } from "./config";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock";
import { PGliteWorkerClient } from "./pglite-proxy";
import { createRateLimits, type RateLimits } from "./rate-limits";
import { type ListenHandlers, listenOnPostgres } from "./token-revocation";

export type Schema = typeof schema;
/** The one database type both drivers satisfy; code never branches on the driver. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction of Db, as db.transaction hands it to its callback. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export type Database = {
  kind: "pglite" | "postgres";
  db: Db;
  /**
   * Where the dashboard's usage reads go: a read replica's pool when DATABASE_READ_URL is set,
   * otherwise `db` itself. It may lag `db` by the replication delay, so nothing that must see its
   * own writes (or writes at all) uses it.
   */
  readDb: Db;
  /** A short description for logs, without credentials. */
  describe: string;
  migrate(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * PostgreSQL only: LISTENs on a channel over a dedicated connection that reconnects after a
   * loss (see platform/token-revocation.ts); returns the stop function. PGlite, a single process,
   * has no other process to hear from.
   */
  listen?(channel: string, handlers: ListenHandlers): () => Promise<void>;
  /** PGlite in a directory: the directory's lock, held until close (see data-dir-lock.ts). */
  lock?: DataDirLock;
  /** The rate-limit counters of every process on this database (see rate-limits.ts). */
  rateLimits: RateLimits;
};

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), "../db/migrations");

type DatabaseTarget =
  | {
      kind: "pglite";
      dataDir: string | null;
      /** What holds the directory's lock: "server", or a command (default: this command line). */
      role?: string;
      readTimeoutMs?: number;
      /**
       * In memory only (dataDir null): start from this image of a database (PGlite's
       * dumpDataDir) instead of an empty one. The tests start every product from one seeded image.
       */
      image?: Blob;
    }
  | {
      kind: "postgres";
      url: string;
      readUrl?: string;
      /**
       * The longest one statement of `readDb` may run (statement_timeout): a dashboard read that
       * would take longer fails with SQLSTATE 57014, which the API answers 422 query_timeout.
       */
      readTimeoutMs?: number;
    };

/** The dashboards' statement time limit when none is configured (READ_TIMEOUT_SECONDS). */
export const DEFAULT_READ_TIMEOUT_MS = 20_000;

/**
 * Opens PGlite (a directory, or memory when dataDir is null) or a PostgreSQL pool, plus a second
 * pool for `readDb` when a read replica is given.
 */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.kind === "pglite") {
    return target.dataDir === null
      ? openPgliteInMemory(target.image)
      : openPgliteDirectory(target.dataDir, target.role, target.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
  }
  const primary = await openPool(target.url);
  // Dashboard reads get a pool of their own, on the replica or else the primary: its statements
  // stop at the time limit (the server cancels them, freeing the connection), and however many
  // reports run, they never take the connections that writes and sign-ins need.
  const reads = await openPool(target.readUrl ?? target.url, {
    max: READ_POOL_SIZE,
    statementTimeoutMs: target.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
  }).catch(endFirst(primary.pool));
  const db = drizzleNodePg(primary.pool, { schema }) as unknown as Db;
  return {
    kind: "postgres",
    db,
    readDb: drizzleNodePg(reads.pool, { schema }) as unknown as Db,
    describe: target.readUrl ? `${primary.describe} (reads: ${reads.describe})` : primary.describe,
    migrate: () => migrateNodePg(db as never, { migrationsFolder }),
    ping: async () => void (await primary.pool.query("select 1")),
    close: async () => {
      await Promise.all([primary.pool.end(), reads.pool.end()]);
    },
    listen: (channel, handlers) => listenOnPostgres(target.url, channel, handlers),
    rateLimits: createRateLimits(primary.pool),
  };
}

/**
 * PGlite in a directory, the product's embedded default: locked to this process, and run in a
 * worker thread so that a long statement never holds the thread that serves HTTP.
 */
async function openPgliteDirectory(dataDir: string, role: string | undefined, readTimeoutMs: number) {
  const dir = resolve(dataDir, "pglite");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = acquireDataDirLock(dataDir, role ?? (process.argv.slice(2).join(" ") || "a command"));
  let client: PGliteWorkerClient;
  try {
    client = await PGliteWorkerClient.open(dir);
  } catch (err) {
    lock.release();
    throw new ConfigError(`Cannot open the embedded database in ${dir}: ${(err as Error).message}`);
  }
  const db = drizzlePglite(client as never, { schema }) as unknown as Db;
  // PGlite cannot cancel a statement (PostgreSQL's timer does not run in WebAssembly): a read past
  // its limit answers its caller then, and finishes in the database thread meanwhile.
  const readDb = drizzlePglite(client.withTimeLimit(readTimeoutMs) as never, { schema }) as unknown as Db;
  const database: Database = {
    kind: "pglite",
    db,
    readDb,
    describe: `PGlite at ${dir}`,
    migrate: () => migratePglite(db as never, { migrationsFolder }),
    ping: async () => void (await client.query("select 1")),
    close: async () => {
      try {
        await client.close();
      } finally {
        lock.release();
      }
    },
    lock,
    rateLimits: createRateLimits(null),
  };
  return database;
}

/** PGlite in memory, in this thread: tests' throwaway databases, with nothing to share. An image
 * spares PostgreSQL's initdb (about 2.5 s) and whatever the image already holds. */
async function openPgliteInMemory(image?: Blob): Promise<Database> {
  // pg_trgm: the records search index's operator classes (migration 0008 creates the extension).
  const client = await PGlite.create({ extensions: { pg_trgm }, ...(image ? { loadDataDir: image } : {}) });
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    kind: "pglite",
    db,
    readDb: db,
    describe: "PGlite in memory",
    migrate: () => migratePglite(db as never, { migrationsFolder }),
    ping: async () => void (await client.query("select 1")),
    close: () => client.close(),
    rateLimits: createRateLimits(null),
  };
}

/** Ends an already opened pool before passing on the error of opening the next one. */
const endFirst = (pool: pg.Pool) => async (err: unknown) => {
  await pool.end().catch(() => {});
  throw err;
};

/** How long a checked-out client whose connection ended may stay unreleased (see openPool). */
const ABANDONED_CLIENT_GRACE_MS = 2_000;

/** Connections of the dashboard reads' pool, per process. */
const READ_POOL_SIZE = 5;

/** A PostgreSQL pool that has made one connection (so a wrong URL fails at start, not on a call). */
async function openPool(
  connectionString: string,
  opts: { max?: number; statementTimeoutMs?: number } = {},
): Promise<{ pool: pg.Pool; describe: string }> {
  const url = new URL(connectionString);
  const describe = `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`;
  const pool = new pg.Pool({
    connectionString,
    max: opts.max ?? 10,
    connectionTimeoutMillis: 5000,
    ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
  });
  // An idle client's error must not crash the process; the next query reports it.
  pool.on("error", () => {});
  // Nor a checked-out client's: the pool listens only while a client is idle, so a connection
  // the server drops (PostgreSQL restarting) between two statements of a transaction emitted an
  // unhandled 'error' and killed the process. The statement in flight, or the next one, fails
  // with the error instead, and the pool discards the broken client when it is released.
  pool.on("connect", (client) => {
    client.on("error", () => {});
    client.on("end", () => releaseIfAbandoned(client));
  });
  // Drizzle's transaction sends BEGIN before its try/finally, so when BEGIN fails on a connection
  // the server cut (a restart, a terminated backend) the client is never released: it would stay
  // checked out for good, a pool slot lost per failed BEGIN, and pool.end() at shutdown would wait
  // for it forever. A checked-out client whose connection has ended and that nobody released
  // within a grace period is released here, as broken, so the pool discards it.
  const checkedOut = new Set<pg.PoolClient>();
  pool.on("acquire", (client) => {
    checkedOut.add(client);
    if ((client as unknown as { _ending?: boolean })._ending) releaseIfAbandoned(client);
  });
  pool.on("release", (_err, client) => checkedOut.delete(client));
  function releaseIfAbandoned(client: pg.PoolClient) {
    setTimeout(() => {
      if (!checkedOut.delete(client)) return;
      try {
        client.release(new Error("connection ended while checked out"));
      } catch {
        // Released meanwhile after all.
      }
    }, ABANDONED_CLIENT_GRACE_MS).unref();
  }
  try {
    const c = await pool.connect();
    c.release();
  } catch (err) {
    await pool.end().catch(() => {});
    throw new ConfigError(`Cannot connect to ${describe}: ${(err as Error).message}`);
  }
  return { pool, describe };
}

/** Node network errors that mean the database server cannot be reached right now. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EAI_AGAIN",
]);
/** What node-postgres says when a connection is cut or cannot be made in time (it sets no code). */
const DRIVER_MESSAGES = [
  "Connection terminated",
  "Client has encountered a connection error",
  "timeout exceeded when trying to connect",
  "Cannot use a pool after calling end on the pool",
];

/**
 * SQLSTATEs of a server that cannot take the call now: class 08 (connection exception), 57P01-
 * 57P03 (admin shutdown, crash shutdown, cannot connect now: starting up or shutting down), 53300
 * (too many connections) and 53400 (configuration limit exceeded), and 55000 when it says the
 * database is not currently accepting connections (ALTER DATABASE ... ALLOW_CONNECTIONS false).
 */
function unavailableSqlState(code: string, message: unknown): boolean {
  if (/^(08|57P0[123]$|53[34]00$)/.test(code)) return true;
  return (
    code === "55000" && typeof message === "string" && /not currently accepting connections/.test(message)
  );
}

/**
 * An error and those it wraps (Drizzle reports a failed query as a DrizzleQueryError whose cause is
 * the driver's error), outermost first, at most five deep.
 */
export function* errorChain(err: unknown): Generator<object> {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as Error).cause, depth++)
    yield e;
}

/** A unique-constraint violation (SQLSTATE 23505), however deep the drivers wrapped it. */
export function isUniqueViolation(err: unknown): boolean {
  for (const e of errorChain(err)) if ((e as { code?: unknown }).code === "23505") return true;
  return false;
}

/** The code (SQLSTATE or Node error code) of an error or of one it wraps, for logs and /readyz. */
export function databaseErrorCode(err: unknown): string | null {
  for (const e of errorChain(err)) {
    if (e instanceof AggregateError) {
      for (const x of e.errors) {
        const c = databaseErrorCode(x);
        if (c) return c;
      }
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[A-Z0-9_]{2,32}$/.test(code)) return code;
  }
  return null;
}

/**
 * Whether an error (or one it wraps: Drizzle reports a failed query as a DrizzleQueryError whose
 * cause is the driver's error) says the database is away, not that the statement was wrong:
 * refused or cut connections and the SQLSTATEs of unavailableSqlState (connection exceptions, a
 * server shutting down, crashed, starting up, out of connections, or closed to connections). Such
 * a failure is temporary: a 503, not a 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of errorChain(err)) {
    if (e instanceof AggregateError && e.errors.some((x) => isDatabaseUnavailable(x))) return true;
    const code = (e as { code?: unknown }).code;
    const message = (e as { message?: unknown }).message;
    if (typeof code === "string" && (NETWORK_CODES.has(code) || unavailableSqlState(code, message)))
      return true;
    if (typeof message === "string" && DRIVER_MESSAGES.some((m) => message.startsWith(m))) return true;
  }
  return false;
}
