// The serving process's background jobs: every kind of job has its handler here and runs on the one
// job runner (platform/jobs.ts). The daily retention tasks are recurring jobs of the installation.
import { purgeExpiredEventKeys } from "./metering/ingestion/event-key-retention";
import { RERATE_JOB, rerateJobHandler, SERIAL_JOB_KINDS } from "./metering/pricing/rerate-job";
import { partitionJobHandlers } from "./metering/shared/partitions-job";
import { purgeAuditLog } from "./platform/audit";
import type { Db } from "./platform/database";
import { createJobRunner, type JobLog, releaseOrphanedJobs } from "./platform/jobs";

const DAY_MS = 24 * 60 * 60 * 1000;

export const AUDIT_PURGE = "audit-retention";
export const EVENT_KEY_PURGE = "event-key-retention";

type Settings = { auditRetentionDays: number; usageMaxAgeDays: number; database?: { kind: string } };

/** The handlers of every kind of job, as run by this process. */
export function jobHandlers(db: Db, settings: Settings, log: JobLog) {
  return {
    /** Re-rating after a price change (metering/pricing/rerate-job.ts). */
    [RERATE_JOB]: rerateJobHandler(db),
    /** Archiving and restoring a month of usage events (metering/shared/partitions-job.ts). */
    ...partitionJobHandlers(db),
    /** Audit log entries older than AUDIT_RETENTION_DAYS. */
    [AUDIT_PURGE]: async () => {
      const purged = await purgeAuditLog(db, settings.auditRetentionDays);
      if (purged)
        log.info(
          { purged, retentionDays: settings.auditRetentionDays },
          "audit log entries past retention purged",
        );
    },
    /** Idempotency keys of usage past USAGE_MAX_AGE_DAYS (see event-key-retention.ts for why then). */
    [EVENT_KEY_PURGE]: async () => {
      const purged = await purgeExpiredEventKeys(db, settings.usageMaxAgeDays);
      if (purged)
        log.info(
          { purged, maxAgeDays: settings.usageMaxAgeDays },
          "usage event keys past the acceptance horizon deleted",
        );
    },
  };
}

/**
 * Starts the job runner of a serving process (so the embedded database keeps its one writer); the
 * retention tasks run shortly after the first start, then daily; queued and interrupted jobs (a
 * re-rating of a process killed midway) run at once. Answers the stop function.
 */
export async function startBackgroundJobs(db: Db, settings: Settings, log: JobLog) {
  // The embedded database has one serving process: a job it shows running lost its runner with the
  // last process (killed), so it resumes now rather than when its lease would have ended.
  if (settings.database?.kind === "pglite") {
    const released = await releaseOrphanedJobs(db);
    if (released) log.info({ released }, "jobs of the last process resumed");
  }
  const runner = createJobRunner(db, {
    log,
    serialKinds: SERIAL_JOB_KINDS,
    handlers: jobHandlers(db, settings, log),
    recurring: [
      { kind: AUDIT_PURGE, everyMs: DAY_MS, firstAfterMs: 60_000 },
      { kind: EVENT_KEY_PURGE, everyMs: DAY_MS, firstAfterMs: 90_000 },
    ],
  });
  await runner.start();
  return () => runner.stop();
}
