/**
 * The `events` commands: usage_events' monthly partitions — list them, archive a closed month
 * (detach it; it stays as usage_events_archive_yYYYYmMM until dumped and dropped), restore one.
 * Parsing is pure (one line saying what is wrong); running returns the lines to print.
 */
import type { Db } from "../platform/database";
import { archiveMonth, isMonth, listMonths, restoreMonth } from "./partitions";

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

/** Runs the command: the lines to print, and whether it did what was asked. */
export async function runEventsCommand(
  db: Db,
  cmd: EventsCommand,
): Promise<{ ok: boolean; lines: string[] }> {
  if (cmd.action === "months") {
    const months = await listMonths(db);
    if (!months.length) return { ok: true, lines: ["No monthly partitions yet."] };
    return {
      ok: true,
      lines: months.map(
        (m) =>
          `${m.month}  ${m.archived ? "archived" : "attached"}  ${m.table}  ~${m.rows} rows  ${mb(m.bytes)}`,
      ),
    };
  }
  if (cmd.action === "archive") {
    const r = await archiveMonth(db, cmd.month);
    switch (r.status) {
      case "archived":
        return {
          ok: true,
          lines: [
            `Archived ${cmd.month}: ${r.rows} events detached into ${r.table}.`,
            `Dump it with pg_dump -t ${r.table}, then drop it; "events restore --month ${cmd.month}" attaches it again while it exists.`,
          ],
        };
      case "already_archived":
        return { ok: true, lines: [`${cmd.month} is already archived.`] };
      case "not_found":
        return { ok: false, lines: [`No partition holds ${cmd.month}.`] };
      case "refused":
        return {
          ok: false,
          lines: [
            `${cmd.month} cannot be archived yet:`,
            ...r.refusals.map((x) => `  organization ${x.organizationUuid} ${x.reason}`),
          ],
        };
    }
  }
  const r = await restoreMonth(db, cmd.month);
  if (r.status === "restored")
    return { ok: true, lines: [`Restored ${cmd.month}: its events are back in usage_events.`] };
  if (r.status === "not_archived") return { ok: true, lines: [`${cmd.month} is not archived.`] };
  return { ok: false, lines: [`No archived table holds ${cmd.month}.`] };
}
