// Autovacuum's work on the embedded database, done by the serving process (its one writer): the
// planner's statistics (platform/table-statistics) before the first visit, then every minute the
// vacuum (platform/table-vacuum) and the statistics. A PostgreSQL database has its own autovacuum.

import type { Db } from "./database";
import type { JobLog } from "./jobs";
import { analyzeChangedTables } from "./table-statistics";
import { vacuumChangedTables } from "./table-vacuum";

const EVERY_MS = 60_000;

/** Runs one part, logged: which tables and how long it held the database (every statement waits
 * its turn there), or why it failed. It never throws: without it the database only grows and plans
 * are slower, and the next pass tries again. */
async function logged(log: JobLog, run: () => Promise<string[]>, done: string, failed: string) {
  const started = performance.now();
  try {
    const tables = await run();
    if (tables.length) log.info({ tables, ms: Math.round(performance.now() - started) }, done);
  } catch (err) {
    log.error({ err }, failed);
  }
}

/**
 * Vacuums, then analyzes, the tables that need it; the vacuum goes first, as autovacuum's does: it
 * leaves the live row counts the analysis's threshold reads up to date. `atStart` (before the
 * server listens): the statistics only, with every sizeable table never analyzed. They decide the
 * first visit's plans; the vacuum does not, and waits for the first scheduled pass.
 */
export async function maintainTables(db: Db, log: JobLog, { atStart = false } = {}) {
  if (!atStart)
    await logged(log, () => vacuumChangedTables(db), "tables vacuumed", "could not vacuum the tables");
  await logged(
    log,
    () => analyzeChangedTables(db, { atStart }),
    "table statistics refreshed",
    "could not refresh the table statistics",
  );
}

/** Runs maintainTables every minute (a pass still running skips the tick) until the returned stop
 * function is called. */
export function scheduleTableMaintenance(db: Db, log: JobLog, everyMs = EVERY_MS) {
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
