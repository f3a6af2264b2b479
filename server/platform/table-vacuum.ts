// Autovacuum's vacuum part for the embedded database, which has no autovacuum (PGlite runs none of
// PostgreSQL's background workers). Without it nothing there was ever vacuumed: the rows that
// updates and deletes leave behind (re-rating an open cycle rewrites its events, the retention
// purges delete event keys and audit rows, budgets update their state) were never reclaimed, so
// the database under ./data only grew and every scan read the dead rows too; nor were inserted
// rows ever marked all-visible, so no index-only scan could skip the table. Run by the serving
// process (the database's one writer) with the statistics (platform/table-maintenance).
import { sql } from "drizzle-orm";
import type { Db } from "./database";

/** Autovacuum's defaults: autovacuum_vacuum_threshold and autovacuum_vacuum_scale_factor (dead
 * rows), autovacuum_vacuum_insert_threshold and autovacuum_vacuum_insert_scale_factor (rows
 * inserted since the last vacuum). */
const DEAD_THRESHOLD_ROWS = 50;
const DEAD_SCALE_FACTOR = 0.2;
const INSERT_THRESHOLD_ROWS = 1000;
const INSERT_SCALE_FACTOR = 0.2;

/**
 * Vacuums each table (partitions one by one, never a partitioned parent, whose VACUUM would take
 * all its partitions in one statement) whose dead rows or rows inserted since its last vacuum pass
 * autovacuum's thresholds, one statement each, so that other requests' statements run between
 * them; returns their names.
 */
export async function vacuumChangedTables(db: Db): Promise<string[]> {
  const result = (await db.execute(sql`
    select s.relid::regclass::text as name
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where c.relkind = 'r'
      and (s.n_dead_tup > ${DEAD_THRESHOLD_ROWS}::float8 + ${DEAD_SCALE_FACTOR}::float8 * s.n_live_tup
        or s.n_ins_since_vacuum > ${INSERT_THRESHOLD_ROWS}::float8 + ${INSERT_SCALE_FACTOR}::float8 * s.n_live_tup)
    order by name`)) as unknown as { rows: { name: string }[] };
  const names = result.rows.map((r) => r.name);
  // regclass text is the table's name quoted as SQL needs it. VACUUM runs outside a transaction.
  for (const name of names) await db.execute(sql.raw(`vacuum ${name}`));
  return names;
}
