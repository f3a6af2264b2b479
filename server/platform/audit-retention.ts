import { purgeAuditLog } from "./audit";
import { type JobLog, scheduleDaily } from "./daily-job";
import type { Db } from "./database";

/**
 * The audit log's retention, run by the serving process: a purge of entries older than
 * `retentionDays` shortly after start and then once a day. The deletes are idempotent, so several
 * instances doing it is harmless. Returns the stop function.
 */
export function scheduleAuditPurge(db: Db, retentionDays: number, log: JobLog, firstAfterMs = 60_000) {
  return scheduleDaily(log, {
    run: async () => {
      const purged = await purgeAuditLog(db, retentionDays);
      return purged ? { purged, retentionDays } : null;
    },
    done: "audit log entries past retention purged",
    failed: "could not purge the audit log",
    firstAfterMs,
  });
}
