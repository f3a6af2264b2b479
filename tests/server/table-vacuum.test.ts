import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { vacuumChangedTables } from "../../server/platform/table-vacuum";
import { backends, startProduct, type TestProduct } from "./harness";

// The vacuum (server/platform/table-vacuum.ts): the embedded database has no autovacuum, so the
// serving process vacuums the tables whose rows were updated, deleted or inserted past
// autovacuum's thresholds. Without it a table that is rewritten (as re-rating rewrites a cycle's
// events) grows by its whole size each time. The probe table has autovacuum off, so that on
// PostgreSQL only this pass vacuums it.

describe.each(backends())("table vacuum on $name", (backend) => {
  let p: TestProduct;
  beforeAll(async () => {
    p = await startProduct(backend);
    await p.database.db.execute(sql`
      create table vacuum_probe (id int primary key, note text) with (autovacuum_enabled = false)`);
    await p.database.db.execute(sql`
      insert into vacuum_probe select g, repeat('x', 200) from generate_series(1, 4000) g`);
  }, 180_000);
  afterAll(async () => p?.dispose());

  const probe = async () => {
    const result = (await p.database.db.execute(sql`
      select n_dead_tup::int as dead, n_ins_since_vacuum::int as inserted, last_vacuum,
        pg_relation_size('vacuum_probe')::int as bytes
      from pg_stat_user_tables where relname = 'vacuum_probe'`)) as unknown as {
      rows: { dead: number; inserted: number; last_vacuum: unknown; bytes: number }[];
    };
    const row = result.rows[0];
    if (!row) throw new Error("vacuum_probe has no statistics row");
    return row;
  };
  /** A connection's counts reach the shared statistics when it next goes idle: on PostgreSQL up to
   * 10 s after its last statement. */
  const counted = (ready: (row: Awaited<ReturnType<typeof probe>>) => boolean) =>
    vi.waitFor(
      async () => {
        const row = await probe();
        if (!ready(row)) throw new Error(`the statistics do not show the change yet: ${JSON.stringify(row)}`);
        return row;
      },
      { timeout: 30_000, interval: 100 },
    );

  it("vacuums a table past the thresholds, once, and a rewritten table stops growing", async () => {
    // Inserted rows past the insert threshold (1,000 + 20%): vacuumed, then nothing left to do.
    await counted((row) => row.inserted >= 4000);
    expect(await vacuumChangedTables(p.database.db)).toContain("vacuum_probe");
    const clean = await counted((row) => row.inserted === 0);
    expect(clean.last_vacuum).not.toBeNull();
    expect(await vacuumChangedTables(p.database.db)).not.toContain("vacuum_probe");

    // Rewritten three times, each rewrite's dead rows vacuumed before the next: the space is
    // reused. Without the vacuum each rewrite adds the table's whole size (4× after three).
    for (let round = 0; round < 3; round++) {
      await p.database.db.execute(sql`update vacuum_probe set note = repeat(${String(round)}, 200)`);
      await counted((row) => row.dead >= 4000);
      expect(await vacuumChangedTables(p.database.db)).toContain("vacuum_probe");
      await counted((row) => row.dead === 0);
    }
    expect((await probe()).bytes).toBeLessThanOrEqual(2 * clean.bytes);
  }, 180_000);
});
