// Archiving and restoring a month of usage events as jobs (platform/jobs.ts): the operator API
// answers at once with the job; the serving process's runner detaches or attaches the partition.
// Safely re-runnable rather than resumed: the work is one transaction (detach or attach, the runs'
// rollup, the audit entry), so a process killed before its commit left nothing done and the job,
// claimed again, does it; killed after, the job finds the month already so and ends done.
import type { Actor } from "../../platform/audit";
import type { Db } from "../../platform/database";
import { enqueueJob, type JobHandler, type JobRow } from "../../platform/jobs";
import { type ArchiveRefusal, archiveMonth, archiveRefusals, listMonths, restoreMonth } from "./partitions";

/** Why a month was not archived or restored, in one line (the operator API answers the same). */
export const eventsRefusal = {
  notFound: (month: string) => `No partition holds ${month}.`,
  noArchive: (month: string) => `No archived table holds ${month}.`,
  refused: (month: string, refusals: readonly ArchiveRefusal[]) =>
    `${month} cannot be archived yet: ${refusals
      .map((x) => `organization ${x.organizationUuid} ${x.reason}`)
      .join("; ")}.`,
};

export const PARTITION_ARCHIVE_JOB = "partition-archive";
export const PARTITION_RESTORE_JOB = "partition-restore";
export const PARTITION_JOB_KINDS = [PARTITION_ARCHIVE_JOB, PARTITION_RESTORE_JOB] as const;

export type PartitionAction = "archive" | "restore";

/** What a finished partition job did (the job row keeps it). */
export type PartitionOutcome =
  | { month: string; status: "archived"; table: string; rows: number }
  | { month: string; status: "already_archived" | "restored" | "not_archived" };

type Payload = { month: string; actor: Actor | null; outcome?: PartitionOutcome };

/**
 * Queues archiving or restoring a month, after the checks that can answer now: no such month
 * (not_found) or, to archive, billing still open there (refused). Answers the job's id.
 */
export async function enqueuePartitionJob(
  db: Db,
  action: PartitionAction,
  month: string,
  actor?: Actor,
): Promise<{ ok: true; jobUuid: string } | { ok: false; status: "not_found" | "refused"; refusal: string }> {
  const found = (await listMonths(db)).find((m) => m.month === month);
  if (!found)
    return {
      ok: false,
      status: "not_found",
      refusal: action === "archive" ? eventsRefusal.notFound(month) : eventsRefusal.noArchive(month),
    };
  if (action === "archive" && !found.archived) {
    const refusals = await archiveRefusals(db, month);
    if (refusals.length)
      return { ok: false, status: "refused", refusal: eventsRefusal.refused(month, refusals) };
  }
  const payload: Payload = { month, actor: actor ?? null };
  const jobUuid = await enqueueJob(db, {
    kind: action === "archive" ? PARTITION_ARCHIVE_JOB : PARTITION_RESTORE_JOB,
    payload,
    total: 1,
  });
  if (!jobUuid) throw new Error("a partition job without a dedupe key was not queued");
  return { ok: true, jobUuid };
}

/** The job's handler: does the work (or finds it done), then records what it did with its progress. */
export function partitionJobHandler(db: Db, action: PartitionAction): JobHandler {
  return async (ctx) => {
    const { month, actor } = ctx.job.payload as Payload;
    const by = actor ?? undefined;
    let outcome: PartitionOutcome;
    if (action === "archive") {
      const r = await archiveMonth(db, month, by);
      // Billing opened in the month since it was queued, or the month went: the job fails, saying why.
      if (r.status === "not_found") throw new Error(eventsRefusal.notFound(month));
      if (r.status === "refused") throw new Error(eventsRefusal.refused(month, r.refusals));
      outcome = r.status === "archived" ? { month, ...r } : { month, status: r.status };
    } else {
      const r = await restoreMonth(db, month, by);
      if (r.status === "not_found") throw new Error(eventsRefusal.noArchive(month));
      outcome = { month, status: r.status };
    }
    await db.transaction((tx) => ctx.checkpoint(tx, 1, { outcome }));
  };
}

/** Both kinds' handlers, for a runner. */
export const partitionJobHandlers = (db: Db): Record<string, JobHandler> => ({
  [PARTITION_ARCHIVE_JOB]: partitionJobHandler(db, "archive"),
  [PARTITION_RESTORE_JOB]: partitionJobHandler(db, "restore"),
});

/** What a finished partition job did; null for another kind, or before it is done. */
export const partitionOutcomeOf = (job: JobRow): PartitionOutcome | null =>
  (PARTITION_JOB_KINDS as readonly string[]).includes(job.kind) && job.state === "done"
    ? ((job.payload as Payload).outcome ?? null)
    : null;
