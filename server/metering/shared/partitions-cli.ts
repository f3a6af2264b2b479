/**
 * The `events` commands: usage_events' monthly partitions — list them, archive a closed month
 * (detach it; it stays as usage_events_archive_yYYYYmMM until dumped and dropped), restore one.
 * Parsing is pure (one line saying what is wrong); running returns the lines to print, rendered
 * from what was done, so the command prints the same through a running server's operator API.
 */
import type { Actor } from "../../platform/audit";
import type { Db } from "../../platform/database";
import { runUntilDone } from "../../platform/jobs";
import { isMonth, listMonths, type MonthPartition } from "./partitions";
import {
  enqueuePartitionJob,
  type PartitionOutcome,
  partitionJobHandlers,
  partitionOutcomeOf,
} from "./partitions-job";

export const EVENTS_USAGE = `  events months
            usage_events' monthly partitions: rows (estimated), size, attached or archived
  events archive --month YYYY-MM
            detach a month whose billing cycles are all closed: its events leave the records and
            the export (the rollups, so summaries and bills, keep them) and stay in the table
            usage_events_archive_yYYYYmMM until you dump and drop it (pg_dump -t <table>)
  events restore --month YYYY-MM
            attach an archived month again
            (archive and restore run as a job and wait for it; --no-wait prints the job's id)`;

/** `wait: false` (--no-wait): the job's id is printed and the command returns while it runs. */
export type EventsCommand =
  | { action: "months" }
  | { action: "archive" | "restore"; month: string; wait?: boolean };

export function parseEventsArgs(
  args: readonly string[],
): { ok: true; value: EventsCommand } | { ok: false; error: string } {
  const [action, ...rest] = args;
  if (action === "months") {
    if (rest.length) return { ok: false, error: "events months takes no options." };
    return { ok: true, value: { action } };
  }
  if (action === "archive" || action === "restore") {
    const wait = !rest.includes("--no-wait");
    if (!wait) rest.splice(rest.indexOf("--no-wait"), 1);
    const flag = rest[0];
    const inline = flag?.startsWith("--month=") ? flag.slice("--month=".length) : undefined;
    const month = inline ?? (flag === "--month" ? rest[1] : undefined);
    const used = inline !== undefined ? 1 : 2;
    if (month === undefined || rest.length !== used)
      return { ok: false, error: `Usage: events ${action} --month YYYY-MM` };
    if (!isMonth(month)) return { ok: false, error: `--month must be a month as YYYY-MM, not "${month}".` };
    return { ok: true, value: wait ? { action, month } : { action, month, wait } };
  }
  return {
    ok: false,
    error: "Usage: events months | events archive --month YYYY-MM | events restore --month YYYY-MM",
  };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

export { eventsRefusal } from "./partitions-job";

/** What the command did: the months listed, or a month archived or restored (or already so). */
export type EventsOutcome =
  | { action: "months"; months: MonthPartition[] }
  | { action: "archive"; month: string; status: "archived"; table: string; rows: number }
  | { action: "archive"; month: string; status: "already_archived" }
  | { action: "restore"; month: string; status: "restored" | "not_archived" }
  | { action: "archive" | "restore"; month: string; status: "queued"; jobUuid: string };

/** The lines the command prints for what it did. */
export function eventsLines(o: EventsOutcome): string[] {
  if (o.action === "months") {
    if (!o.months.length) return ["No monthly partitions yet."];
    return o.months.map(
      (m) =>
        `${m.month}  ${m.archived ? "archived" : "attached"}  ${m.table}  ~${m.rows} rows  ${mb(m.bytes)}`,
    );
  }
  if (o.status === "queued")
    return [
      `${o.action === "archive" ? "Archiving" : "Restoring"} ${o.month} queued as job ${o.jobUuid} (GET /v1/operator/jobs/${o.jobUuid}).`,
    ];
  if (o.action === "archive")
    return o.status === "archived"
      ? [
          `Archived ${o.month}: ${o.rows} events detached into ${o.table}.`,
          `Dump it with pg_dump -t ${o.table}, then drop it; "events restore --month ${o.month}" attaches it again while it exists.`,
        ]
      : [`${o.month} is already archived.`];
  return o.status === "restored"
    ? [`Restored ${o.month}: its events are back in usage_events.`]
    : [`${o.month} is not archived.`];
}

/**
 * Does the command on the database: queues the job and, unless told not to wait, runs it in this
 * process (the same job a server would run): what was done, or the one line saying why not.
 */
export async function doEventsCommand(
  db: Db,
  cmd: EventsCommand,
  actor?: Actor,
  progress?: (done: number, total: number | null) => void,
): Promise<{ ok: true; outcome: EventsOutcome } | { ok: false; refusal: string }> {
  const done = (outcome: EventsOutcome) => ({ ok: true as const, outcome });
  const refused = (refusal: string) => ({ ok: false as const, refusal });
  if (cmd.action === "months") return done({ action: "months", months: await listMonths(db) });
  const { action, month } = cmd;
  const queued = await enqueuePartitionJob(db, action, month, actor);
  if (!queued.ok) return refused(queued.refusal);
  if (cmd.wait === false) return done({ action, month, status: "queued", jobUuid: queued.jobUuid });
  progress?.(0, 1);
  const job = await runUntilDone(db, queued.jobUuid, { handlers: partitionJobHandlers(db), log: SILENT });
  progress?.(job.done, job.total);
  const outcome = partitionOutcomeOf(job);
  if (!outcome) return refused(job.error ?? `Job ${job.id} did not finish.`);
  return done(eventsOutcomeOf(action, outcome));
}

/** A finished job's outcome as the command prints it. */
export function eventsOutcomeOf(action: "archive" | "restore", o: PartitionOutcome): EventsOutcome {
  if (action === "archive")
    return o.status === "archived"
      ? { action, month: o.month, status: "archived", table: o.table, rows: o.rows }
      : { action, month: o.month, status: "already_archived" };
  return { action, month: o.month, status: o.status === "restored" ? "restored" : "not_archived" };
}

const SILENT = { info: () => {}, error: () => {} };

/**
 * Runs the command on the database: the lines to print, and whether it did what was asked (a
 * refusal is one line). With an actor, archiving and restoring are audited.
 */
export async function runEventsCommand(
  db: Db,
  cmd: EventsCommand,
  actor?: Actor,
): Promise<{ ok: boolean; lines: string[] }> {
  const r = await doEventsCommand(db, cmd, actor);
  return r.ok ? { ok: true, lines: eventsLines(r.outcome) } : { ok: false, lines: [r.refusal] };
}
