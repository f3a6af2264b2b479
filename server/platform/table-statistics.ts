// The planner's statistics on the embedded database (run with the vacuum by
// platform/table-maintenance). PGlite runs PostgreSQL without its background
// workers, autovacuum among them, so nothing ever ran ANALYZE there: the planner estimated every
// table as an empty database's. On the demo's 30,000 events it guessed 11 rows in a billing cycle
// of 9,400, and sorted all of them to show the records page's ten (27 ms per page where the index
// gives them in 8; every landing call of Billing & Usage is slower the same way). The serving
// process (the database's one writer) does autovacuum's analyze part itself: once the demo is
// seeded, then every minute, each table whose rows changed since its last analysis by more than
// autovacuum's own threshold (50 rows and 10% of the table), and the partitioned tables those
// belong to (which autovacuum never analyzes, on PostgreSQL either). PostgreSQL's own autovacuum
// is left to do this on a PostgreSQL database.
import { sql } from "drizzle-orm";
import type { Db } from "./database";

/** Autovacuum's defaults: autovacuum_analyze_threshold and autovacuum_analyze_scale_factor. */
const ANALYZE_THRESHOLD_ROWS = 50;
const ANALYZE_SCALE_FACTOR = 0.1;

/** Without statistics and larger than this: analyzed at start whatever the change counters say
 * (they start again from zero on every start of the embedded database). Statistics are kept in the
 * catalog and survive a restart, where the counters and `last_analyze` do not: asked by the
 * counters, a restart analyzed every table again before the server listened (3.6 s on the fresh
 * 100,000-event demo). */
const UNANALYZED_BYTES = 64 * 1024;

/**
 * Analyzes the tables changed past the threshold (`atStart`: and every sizeable table without
 * statistics) and their partitioned parents, one statement each, so that other requests' statements
 * run between them; returns their names.
 */
export async function analyzeChangedTables(db: Db, { atStart = false } = {}): Promise<string[]> {
  const result = (await db.execute(sql`
    with changed as (
      select relid from pg_stat_user_tables t
      where n_mod_since_analyze > ${ANALYZE_THRESHOLD_ROWS}::float8 + ${ANALYZE_SCALE_FACTOR}::float8 * n_live_tup
        or (${atStart}::boolean and pg_relation_size(relid) > ${UNANALYZED_BYTES}::bigint
          and not exists (select from pg_stats s where s.schemaname = t.schemaname and s.tablename = t.relname))
    )
    select relid::regclass::text as name, 0 as pass from changed
    union
    select distinct i.inhparent::regclass::text, 1 from pg_inherits i join changed c on c.relid = i.inhrelid
    order by pass, name`)) as unknown as { rows: { name: string }[] };
  const names = result.rows.map((r) => r.name);
  // regclass text is the table's name quoted as SQL needs it.
  for (const name of names) await db.execute(sql.raw(`analyze ${name}`));
  return names;
}
