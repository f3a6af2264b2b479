import { purgeAuditLog } from "./audit";
import type { Db } from "./database";

const DAY_MS = 24 * 60 * 60 * 1000;

type Log = { info(obj: object, msg: string): void; error(obj: object, msg: string): void };

/**
 * The audit log's retention, run by the serving process: a purge of entries older than
 * `retentionDays` shortly after start and then once a day. Every API process may run it; the
 * deletes are idempotent, so several instances doing it is harmless. Returns the stop function.
 */
export function scheduleAuditPurge(db: Db, retentionDays: number, log: Log, firstAfterMs = 60_000) {
  const run = async () => {
    try {
      const purged = await purgeAuditLog(db, retentionDays);
      if (purged) log.info({ purged, retentionDays }, "audit log entries past retention purged");
    } catch (err) {
      log.error({ err }, "could not purge the audit log");
    }
  };
  const first = setTimeout(() => void run(), firstAfterMs);
  const daily = setInterval(() => void run(), DAY_MS);
  first.unref();
  daily.unref();
  return () => {
    clearTimeout(first);
    clearInterval(daily);
  };
}
