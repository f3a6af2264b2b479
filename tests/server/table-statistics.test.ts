import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { seedUsage } from "../../server/demo-cli";
import { analyzeChangedTables } from "../../server/platform/table-statistics";
import { backends, startProduct, type TestProduct } from "./harness";

// The planner's statistics (server/platform/table-statistics.ts): the embedded database has no
// autovacuum, so the serving process analyzes the tables whose rows changed. Without it, the
// records page's first ten rows of a cycle were found by sorting the whole cycle.

describe.each(backends())("table statistics on $name", (backend) => {
  let p: TestProduct;
  beforeAll(async () => {
    p = await startProduct(backend);
    await seedUsage(p, 6_000, 7, false);
  }, 180_000);
  afterAll(async () => p?.dispose());

  const rows = async (q: ReturnType<typeof sql>) =>
    ((await p.database.db.execute(q)) as unknown as { rows: Record<string, unknown>[] }).rows;

  it("analyzes the changed tables and the partitioned table they belong to, once", async () => {
    // A connection's counts reach the shared statistics when it next goes idle, on PostgreSQL up to
    // 10 s after its last statement: wait until the seeding's rows are counted.
    await vi.waitFor(
      async () => {
        const [counted] = await rows(sql`
          select count(*)::int as n from pg_stat_user_tables
          where relname like 'usage_events_%' and (n_mod_since_analyze > 0 or last_autoanalyze is not null)`);
        expect(Number(counted?.n)).toBeGreaterThan(0);
      },
      { timeout: 30_000, interval: 100 },
    );
    const first = await analyzeChangedTables(p.database.db);
    // On PostgreSQL its own autovacuum may have been first to the partitions; never to the parent.
    if (backend.name === "pglite") expect(first.some((t) => t.startsWith("usage_events_"))).toBe(true);
    expect(first).toContain("usage_events");
    const analyzed = await rows(sql`
      select relname from pg_stat_user_tables
      where relname like 'usage_events%' and last_analyze is null and last_autoanalyze is null
        and n_live_tup > 0`);
    expect(analyzed).toEqual([]);
    // Nothing changed since: nothing to do.
    expect(await analyzeChangedTables(p.database.db)).toEqual([]);
  });

  it("then reads a cycle's newest records from the index instead of sorting the cycle", async () => {
    const [org] = await rows(sql`select organization_uuid from usage_events limit 1`);
    const since = new Date(Date.now() - 40 * 24 * 60 * 60 * 1000).toISOString();
    const plan = await rows(sql`
      explain (format json) select usage_event_uuid, occurred_at from usage_events
      where organization_uuid = ${org?.organization_uuid} and occurred_at >= ${since}
      order by occurred_at desc, usage_event_uuid desc limit 10`);
    const text = JSON.stringify(plan);
    expect(text).toContain("usage_events_org_occurred_uuid_idx");
    expect(text).not.toContain('"Node Type":"Sort"');
  });

  it("at start analyzes a sizeable table without statistics, and not again the tables a restart found analyzed", async () => {
    // A restart of the embedded database starts every counter from zero, last_analyze included;
    // pg_stat_reset does the same to this database's, while the statistics stay in the catalog.
    await p.database.db.execute(
      sql`create table statistics_probe (id int, note text) with (autovacuum_enabled = false)`,
    );
    await p.database.db.execute(
      sql`insert into statistics_probe select g, repeat('x', 60) from generate_series(1, 3000) g`,
    );
    await p.database.db.execute(sql`select pg_stat_reset()`);
    expect(await analyzeChangedTables(p.database.db, { atStart: true })).toEqual(["statistics_probe"]);
    expect(await analyzeChangedTables(p.database.db, { atStart: true })).toEqual([]);
  });
});
