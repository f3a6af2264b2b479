/**
 * The `events` commands: usage_events' monthly partitions — list them, archive a closed month
 * (detach it; it stays as usage_events_archive_yYYYYmMM until dumped and dropped), restore one.
 * Parsing is pure (one line saying what is wrong); running returns the lines to print, rendered
 * from what was done, so the command prints the same through a running server's operator API.
 */
import type { Actor } from "../../platform/audit";
import type { Db } from "../../platform/database";
import {
  type ArchiveRefusal,
  archiveMonth,
  isMonth,
  listMonths,
  type MonthPartition,
  restoreMonth,
} from "./partitions";

export const EVENTS_USAGE = `  events months
            usage_events' monthly partitions: rows (estimated), size, attached or archived
  events archive --month YYYY-MM
            detach a month whose billing cycles are all closed: its events leave the records and
            the export (the rollups, so summaries and bills, keep them) and stay in the table
            usage_events_archive_yYYYYmMM until you dump and drop it (pg_dump -t <table>)
  events restore --month YYYY-MM
            attach an archived month again`;

export type EventsCommand = { action: "months" } | { action: "archive" | "restore"; month: string };

export function parseEventsArgs(
  args: readonly string[],
): { ok: true; value: EventsCommand } | { ok: false; error: string } {
  const [action, ...rest] = args;
  if (action === "months") {
    if (rest.length) return { ok: false, error: "events months takes no options." };
    return { ok: true, value: { action } };
  }
  if (action === "archive" || action === "restore") {
    const flag = rest[0];
    const inline = flag?.startsWith("--month=") ? flag.slice("--month=".length) : undefined;
    const month = inline ?? (flag === "--month" ? rest[1] : undefined);
    const used = inline !== undefined ? 1 : 2;
    if (month === undefined || rest.length !== used)
      return { ok: false, error: `Usage: events ${action} --month YYYY-MM` };
    if (!isMonth(month)) return { ok: false, error: `--month must be a month as YYYY-MM, not "${month}".` };
    return { ok: true, value: { action, month } };
  }
  return {
    ok: false,
    error: "Usage: events months | events archive --month YYYY-MM | events restore --month YYYY-MM",
  };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/** Why a month was not archived or restored, in one line (the operator API answers the same). */
export const eventsRefusal = {
  notFound: (month: string) => `No partition holds ${month}.`,
  noArchive: (month: string) => `No archived table holds ${month}.`,
  refused: (month: string, refusals: readonly ArchiveRefusal[]) =>
    `${month} cannot be archived yet: ${refusals
      .map((x) => `organization ${x.organizationUuid} ${x.reason}`)
      .join("; ")}.`,
};

/** What the command did: the months listed, or a month archived or restored (or already so). */
export type EventsOutcome =
  | { action: "months"; months: MonthPartition[] }
  | { action: "archive"; month: string; status: "archived"; table: string; rows: number }
  | { action: "archive"; month: string; status: "already_archived" }
  | { action: "restore"; month: string; status: "restored" | "not_archived" };

/** The lines the command prints for what it did. */
export function eventsLines(o: EventsOutcome): string[] {
  if (o.action === "months") {
    if (!o.months.length) return ["No monthly partitions yet."];
    return o.months.map(
      (m) =>
        `${m.month}  ${m.archived ? "archived" : "attached"}  ${m.table}  ~${m.rows} rows  ${mb(m.bytes)}`,
    );
  }
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

/** Does the command on the database: what was done, or the one line saying why not. */
export async function doEventsCommand(
  db: Db,
  cmd: EventsCommand,
  actor?: Actor,
): Promise<{ ok: true; outcome: EventsOutcome } | { ok: false; refusal: string }> {
  const done = (outcome: EventsOutcome) => ({ ok: true as const, outcome });
  const refused = (refusal: string) => ({ ok: false as const, refusal });
  if (cmd.action === "months") return done({ action: "months", months: await listMonths(db) });
  const month = cmd.month;
  if (cmd.action === "archive") {
    const r = await archiveMonth(db, month, actor);
    if (r.status === "not_found") return refused(eventsRefusal.notFound(month));
    if (r.status === "refused") return refused(eventsRefusal.refused(month, r.refusals));
    return done({ action: "archive", month, ...r });
  }
  const r = await restoreMonth(db, month, actor);
  if (r.status === "not_found") return refused(eventsRefusal.noArchive(month));
  return done({ action: "restore", month, status: r.status });
}

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
