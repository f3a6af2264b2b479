// Autovacuum's work on the embedded database, done by the serving process (its one writer): the
// vacuum (platform/table-vacuum) and the planner's statistics (platform/table-statistics), once
// before the first visit, then every minute. A PostgreSQL database has its own autovacuum.
import type { Db } from "./database";
import { analyzeChangedTables } from "./table-statistics";
import { vacuumChangedTables } from "./table-vacuum";

const EVERY_MS = 60_000;

type Log = { info(obj: object, msg: string): void; error(obj: object, msg: string): void };

/**
 * Vacuums, then analyzes, the tables that need it (`atStart`: also every sizeable table never
 * analyzed), logged: which tables, or why it failed. It never throws: without it the database only
 * grows and plans are slower, and the next pass tries again. The vacuum goes first, as autovacuum's
 * does: it leaves the live row counts the analysis's threshold reads up to date.
 */
export async function maintainTables(db: Db, log: Log, opts: { atStart?: boolean } = {}) {
  // How long each part held the database (every statement waits its turn there) is logged too.
  let since = performance.now();
  const ms = () => Math.round(performance.now() - since);
  try {
    const vacuumed = await vacuumChangedTables(db);
    if (vacuumed.length) log.info({ tables: vacuumed, ms: ms() }, "tables vacuumed");
  } catch (err) {
    log.error({ err }, "could not vacuum the tables");
  }
  since = performance.now();
  try {
    const analyzed = await analyzeChangedTables(db, opts);
    if (analyzed.length) log.info({ tables: analyzed, ms: ms() }, "table statistics refreshed");
  } catch (err) {
    log.error({ err }, "could not refresh the table statistics");
  }
}

/** Runs maintainTables every minute (a pass still running skips the tick) until the returned stop
 * function is called. */
export function scheduleTableMaintenance(db: Db, log: Log, everyMs = EVERY_MS) {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void maintainTables(db, log).finally(() => {
      running = false;
    });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
