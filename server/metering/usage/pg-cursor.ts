// Long reads (the CSV exports) on PostgreSQL: one server-side cursor in a read-only transaction,
// fetched in batches, so the whole export is one snapshot, is planned and sorted once, and holds
// one batch in this process at a time. PGlite has a single connection that a transaction would
// hold for as long as the client downloads, so there the callers read keyset-ordered batches as
// separate statements instead (pgPoolOf answers null).
import pg from "pg";
import type { Db } from "../../platform/database";

/** The PostgreSQL pool behind a Drizzle handle, or null on PGlite. */
export function pgPoolOf(db: Db): pg.Pool | null {
  const client = (db as unknown as { $client?: unknown }).$client;
  return client instanceof pg.Pool ? client : null;
}

// Values as the callers map them: dates ('date' columns) stay text as Drizzle reads them (pg's own
// parser would make local-time Dates of them); the rest is pg's default (int8 as text).
const DATE_OID = 1082;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === DATE_OID
      ? (v: string) => v
      : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

/**
 * The rows of `query` (a Drizzle query: its SQL and parameters) as arrays in its select list's
 * order, `batch` at a time. The connection is the pool's until the generator ends: run to the end,
 * failed, or closed early (`return()`, which Readable.from calls when the client goes away) — then
 * the transaction is rolled back and the connection goes back to the pool. A batch is the caller's
 * until it asks for the next one: then it is emptied (the caller copies what it keeps).
 */
export async function* cursorBatches(
  pool: pg.Pool,
  query: { toSQL(): { sql: string; params: unknown[] } },
  batch: number,
): AsyncGenerator<unknown[][]> {
  const { sql, params } = query.toSQL();
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("begin isolation level repeatable read read only");
    await client.query({ text: `declare export_rows no scroll cursor for ${sql}`, values: params });
    for (;;) {
      const res = await client.query({
        text: `fetch forward ${batch} from export_rows`,
        rowMode: "array",
        types,
      });
      const rows = res.rows as unknown[][];
      const n = rows.length;
      if (n) yield rows;
      // Emptied before the next FETCH: suspended frames (this one, the callers') still reach the
      // batch while the next one is awaited, when the collector's idle-time young-generation passes
      // run, so its values were moved to the old generation and piled up there until a full
      // collection: nearly every value read (204 MiB for 300,000 records) and a peak that grew with
      // the export's size. Emptied, they die young (8 MiB promoted).
      rows.length = 0;
      if (n < batch) return;
    }
  } finally {
    // A failed rollback (the connection is gone) discards the client instead of pooling it.
    await client.query("rollback").catch((err: Error) => {
      broken = err;
    });
    client.release(broken);
  }
}
