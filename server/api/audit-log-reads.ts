import { and, count, desc, eq, gte, inArray, lt, or, type SQL, sql } from "drizzle-orm";
import Papa from "papaparse";
import type { AuditAction, AuditTargetType } from "../../contract/audit-log";
import { AUDIT_CSV_HEADERS, AUDIT_MAX_EXPORT_ROWS, auditCsvCells } from "../../contract/audit-log-csv";
import type { AuditEntry } from "../../contract/audit-log-schema";
import { auditLog } from "../db/schema";
import type { Db } from "../platform/database";

/** What GET /v1/audit-log filters by; every field narrows, none set reads everything. */
export type AuditFilters = {
  /** A user id, or an email (any case). */
  actor?: string;
  actions: AuditAction[];
  targetType?: AuditTargetType;
  targetId?: string;
  /** [from, to): midnight UTC of the first day, and of the day after the last. */
  from?: Date;
  to?: Date;
};

/** The conditions of one organization's filtered entries. */
function whereOf(organizationUuid: string, f: AuditFilters): SQL | undefined {
  const actor = f.actor?.trim();
  return and(
    eq(auditLog.organizationUuid, organizationUuid),
    actor
      ? or(eq(auditLog.actorUserId, actor), sql`lower(${auditLog.actorEmail}) = ${actor.toLowerCase()}`)
      : undefined,
    f.actions.length ? inArray(auditLog.action, f.actions) : undefined,
    f.targetType ? eq(auditLog.targetType, f.targetType) : undefined,
    f.targetId ? eq(auditLog.targetId, f.targetId) : undefined,
    f.from ? gte(auditLog.at, f.from) : undefined,
    f.to ? lt(auditLog.at, f.to) : undefined,
  );
}

type Row = typeof auditLog.$inferSelect;

export const auditEntryJson = (r: Row): AuditEntry => ({
  // The random public id: the internal id counts every organization's entries.
  audit_entry_id: r.entryUuid,
  at: r.at.toISOString(),
  action: r.action as AuditAction,
  actor_user_id: r.actorUserId,
  actor_email: r.actorEmail,
  impersonator_user_id: r.impersonatorUserId,
  source: r.source as AuditEntry["source"],
  target_type: r.targetType as AuditTargetType,
  target_id: r.targetId,
  target_label: r.targetLabel,
  before: (r.before as Record<string, unknown> | null) ?? null,
  after: (r.after as Record<string, unknown> | null) ?? null,
});

/**
 * Entries newest first, in the order they were recorded (the internal id), after the keyset
 * `beforeId`; the keyset stays inside the export and is never shown.
 */
async function rowsBefore(db: Db, where: SQL | undefined, beforeId: number | null, limit: number) {
  return db
    .select()
    .from(auditLog)
    .where(beforeId === null ? where : and(where, lt(auditLog.id, beforeId)))
    .orderBy(desc(auditLog.id))
    .limit(limit);
}

/** One page of an organization's filtered entries, newest first, and how many there are. */
export async function auditPage(
  db: Db,
  organizationUuid: string,
  f: AuditFilters,
  page: { page: number; pageSize: number },
) {
  const where = whereOf(organizationUuid, f);
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(auditLog)
      .where(where)
      .orderBy(desc(auditLog.id))
      .limit(page.pageSize)
      .offset((page.page - 1) * page.pageSize),
    db.select({ n: count() }).from(auditLog).where(where),
  ]);
  return {
    entries: rows.map(auditEntryJson),
    total: counted?.n ?? 0,
    page: page.page,
    page_size: page.pageSize,
  };
}

const CSV_BATCH = 500;

/** Thrown inside the export stream past AUDIT_MAX_EXPORT_ROWS: the transfer breaks, never truncates silently. */
export class AuditExportTooLarge extends Error {}

/**
 * The filtered entries as CSV, newest first, header first, read in keyset batches. The header
 * goes out with the first batch, so a failing first read is an error status, not a header alone.
 */
export async function* auditCsvLines(
  db: Db,
  organizationUuid: string,
  f: AuditFilters,
  maxRows = AUDIT_MAX_EXPORT_ROWS,
): AsyncGenerator<string> {
  const where = whereOf(organizationUuid, f);
  let cursor: number | null = null;
  let sent = 0;
  let header = true;
  for (;;) {
    const rows = await rowsBefore(db, where, cursor, CSV_BATCH);
    if (sent + rows.length > maxRows)
      throw new AuditExportTooLarge(`The export has more than ${maxRows} entries.`);
    const lines = rows.map((r) => auditCsvCells(auditEntryJson(r)));
    if (header) lines.unshift([...AUDIT_CSV_HEADERS]);
    header = false;
    if (lines.length) yield `${Papa.unparse(lines, { newline: "\r\n" })}\r\n`;
    sent += rows.length;
    if (rows.length < CSV_BATCH) return;
    cursor = rows[rows.length - 1]?.id ?? null;
  }
}
