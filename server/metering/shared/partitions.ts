/**
 * usage_events is partitioned by UTC calendar month of occurred_at (migration 0011). A month's
 * partition is created on write, before the batch that needs it is inserted, by the database
 * function usage_events_ensure_month (safe when API processes race); each process remembers the
 * months it has seen so a batch usually costs no extra query. A month whose billing is closed can
 * be archived: detached from usage_events (out of every query and every index write), kept as a
 * table of its own until an operator dumps and drops it, or restored.
 */
import { sql } from "drizzle-orm";
import { type Actor, writeAuditBy } from "../../platform/audit";
import type { Db } from "../../platform/database";
import { fillAdjustmentColumn } from "../pricing/adjustment-fill";
import { dropMonthOfRuns, restoreMonthOfRuns } from "./run-rollup";

/** "YYYY-MM" of a UTC instant. */
export const monthOf = (d: Date) => d.toISOString().slice(0, 7);

/** The distinct months ("YYYY-MM") of the instants, ascending. */
export function monthsOf(dates: Iterable<Date>): string[] {
  const months = new Set<string>();
  for (const d of dates) months.add(monthOf(d));
  return [...months].sort();
}

/** The table that holds a month's events: usage_events_y2026m03 (attached) or the archive's name. */
export const partitionName = (month: string) => `usage_events_y${month.slice(0, 4)}m${month.slice(5, 7)}`;
export const archiveName = (month: string) =>
  `usage_events_archive_y${month.slice(0, 4)}m${month.slice(5, 7)}`;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
export const isMonth = (text: string) => MONTH.test(text);

/** [start, end) of a month as instants at midnight UTC. */
export function monthBounds(month: string): { start: Date; end: Date } {
  const m = MONTH.exec(month);
  if (!m) throw new RangeError(`"${month}" is not a month (YYYY-MM)`);
  const y = Number(m[1]);
  const mo = Number(m[2]);
  return { start: new Date(Date.UTC(y, mo - 1, 1)), end: new Date(Date.UTC(y, mo, 1)) };
}

type Rows<T> = { rows: T[] };

/** Months known to have an attached partition, per database handle (one per API process). */
const ready = new WeakMap<Db, Set<string>>();

/**
 * Makes sure each month has its partition; returns the months that are archived (detached by an
 * operator), whose events must not be inserted. Months seen before cost nothing; the others one
 * statement together.
 */
export async function ensureMonths(db: Db, months: readonly string[]): Promise<Set<string>> {
  const known = ready.get(db) ?? new Set<string>();
  ready.set(db, known);
  const missing = months.filter((m) => !known.has(m));
  const archived = new Set<string>();
  if (!missing.length) return archived;
  const result = (await db.execute(sql`
    select m as month, usage_events_ensure_month((m || '-01')::date) as status
      from unnest(${`{${missing.join(",")}}`}::text[]) as m`)) as unknown as Rows<{
    month: string;
    status: "exists" | "created" | "archived";
  }>;
  for (const r of result.rows) {
    if (r.status === "archived") archived.add(r.month);
    else known.add(r.month);
  }
  return archived;
}

/** Forgets the months this process has seen, e.g. after an insert found one missing (archived since). */
export const forgetMonths = (db: Db) => ready.delete(db);

/** PostgreSQL's answer when a row has no partition: the month was detached after this process saw it. */
export const isMissingPartition = (err: unknown) => {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  const message = e?.message ?? "";
  const causeMessage = e?.cause?.message ?? "";
  return code === "23514" && /no partition of relation/.test(`${message} ${causeMessage}`);
};

export type MonthPartition = {
  month: string;
  table: string;
  archived: boolean;
  rows: number;
  bytes: number;
};

/** Every month's table, attached or archived, with its (estimated) row count and size on disk. */
export async function listMonths(db: Db): Promise<MonthPartition[]> {
  const result = (await db.execute(sql`
    select c.relname as table,
           exists (select 1 from pg_inherits i where i.inhrelid = c.oid
                    and i.inhparent = 'usage_events'::regclass) as attached,
           greatest(c.reltuples, 0)::bigint::text as rows,
           pg_total_relation_size(c.oid)::text as bytes
      from pg_class c
     where c.relkind = 'r' and c.relname ~ '^usage_events_(archive_)?y[0-9]{4}m[0-9]{2}$'
     order by substring(c.relname from 'y[0-9]{4}m[0-9]{2}$')`)) as unknown as Rows<{
    table: string;
    attached: boolean;
    rows: string;
    bytes: string;
  }>;
  return result.rows.map((r) => {
    const m = /y(\d{4})m(\d{2})$/.exec(r.table);
    return {
      month: m ? `${m[1]}-${m[2]}` : "",
      table: r.table,
      archived: !r.attached,
      rows: Number(r.rows),
      bytes: Number(r.bytes),
    };
  });
}

export type ArchiveRefusal = { organizationUuid: string; reason: string };

/**
 * Why a month cannot be archived yet: an organization with events in it still has a billing cycle
 * open (end date null) that starts before the month ends, or has no cycle at all. Archiving takes
 * the events out of the records page, the export and the Eval Runs list (usage_run_daily loses the
 * month's rows); the bill (usage_daily) keeps them.
 */
export async function archiveRefusals(db: Db, month: string): Promise<ArchiveRefusal[]> {
  const { start, end } = monthBounds(month);
  const result = (await db.execute(sql`
    select o.organization_uuid,
           exists (select 1 from billing_cycles c where c.organization_uuid = o.organization_uuid) as has_cycles,
           (select min(c.start_date)::text from billing_cycles c
             where c.organization_uuid = o.organization_uuid and c.end_date is null
               and c.start_date < ${end.toISOString()}::timestamptz) as open_since
      from (select distinct organization_uuid from usage_events
             where occurred_at >= ${start.toISOString()}::timestamptz
               and occurred_at < ${end.toISOString()}::timestamptz) o
     order by 1`)) as unknown as Rows<{
    organization_uuid: string;
    has_cycles: boolean;
    open_since: string | null;
  }>;
  const refusals: ArchiveRefusal[] = [];
  for (const r of result.rows) {
    if (!r.has_cycles)
      refusals.push({ organizationUuid: r.organization_uuid, reason: "has no billing cycle" });
    else if (r.open_since)
      refusals.push({
        organizationUuid: r.organization_uuid,
        reason: `its billing cycle from ${r.open_since} is still open`,
      });
  }
  return refusals;
}

export type ArchiveResult =
  | { status: "archived"; table: string; rows: number }
  | { status: "not_found" }
  | { status: "already_archived" }
  | { status: "refused"; refusals: ArchiveRefusal[] };

/**
 * Detaches a month's partition and renames it usage_events_archive_yYYYYmMM: its events leave
 * every query and index write of usage_events at once; the table stays until an operator dumps and
 * drops it. Refused while any organization with events in that month has its billing open there.
 */
export async function archiveMonth(db: Db, month: string, actor?: Actor): Promise<ArchiveResult> {
  const months = await listMonths(db);
  const found = months.find((m) => m.month === month);
  if (!found) return { status: "not_found" };
  if (found.archived) return { status: "already_archived" };
  const refusals = await archiveRefusals(db, month);
  if (refusals.length) return { status: "refused", refusals };
  const part = partitionName(month);
  const archive = archiveName(month);
  const rows = await db.transaction(async (tx) => {
    const counted = (await tx.execute(
      sql`select count(*)::text as n from ${sql.identifier(part)}`,
    )) as unknown as Rows<{ n: string }>;
    await tx.execute(sql`alter table usage_events detach partition ${sql.identifier(part)}`);
    await tx.execute(sql`alter table ${sql.identifier(part)} rename to ${sql.identifier(archive)}`);
    const { start, end } = monthBounds(month);
    await dropMonthOfRuns(tx, start, end);
    const n = Number(counted.rows[0]?.n ?? 0);
    await writeAuditBy(tx, actor, {
      organizationUuid: null,
      action: "event_partition.archived",
      target: { type: "event_partition", id: month, label: archive },
      before: { table: part, attached: true },
      after: { table: archive, attached: false, rows: n },
    });
    return n;
  });
  forgetMonths(db);
  return { status: "archived", table: archive, rows };
}

/** Attaches an archived month again (its rows are checked against the month's bounds). */
export async function restoreMonth(
  db: Db,
  month: string,
  actor?: Actor,
): Promise<{ status: "restored" | "not_found" | "not_archived" }> {
  const months = await listMonths(db);
  const found = months.find((m) => m.month === month);
  if (!found) return { status: "not_found" };
  if (!found.archived) return { status: "not_archived" };
  const { start, end } = monthBounds(month);
  const part = partitionName(month);
  await db.transaction(async (tx) => {
    // A month archived and dumped before the adjustment column existed lacks it: attach needs it.
    await fillAdjustmentColumn(tx, found.table);
    await tx.execute(sql`alter table ${sql.identifier(found.table)} rename to ${sql.identifier(part)}`);
    await tx.execute(
      sql.raw(
        `alter table usage_events attach partition "${part}" for values from ('${start.toISOString()}') to ('${end.toISOString()}')`,
      ),
    );
    await restoreMonthOfRuns(tx, start, end);
    await writeAuditBy(tx, actor, {
      organizationUuid: null,
      action: "event_partition.restored",
      target: { type: "event_partition", id: month, label: part },
      before: { table: found.table, attached: false },
      after: { table: part, attached: true },
    });
  });
  return { status: "restored" };
}
