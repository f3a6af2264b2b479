// The Eval Runs list's runs of a cycle, grouped once and kept until the organization's usage or its
// started runs change: grouping a busy month's run events takes seconds (a scan of the month's
// partition), and paging, sorting and searching the list then work on the kept rows. The key holds
// the organization's usage version (raised in every transaction that writes usage, rollups.ts) and
// the count and latest start of its started runs, read in one query BEFORE the rows, through the
// same handle: rows read after seeing a key are at least as new as the key. Workspace names are
// never kept (a rename writes no usage): the caller looks them up per request.
import { sql } from "drizzle-orm";
import type { Db } from "../platform/database";
import type { Cycle } from "./cycles";
import { type CycleRun, cycleRuns } from "./eval-runs";

type Rows<T> = { rows: T[] };

/** What the cycle's runs depend on besides the cycle: usage writes and started runs. */
async function freshness(db: Db, organizationUuid: string): Promise<string> {
  const result = (await db.execute(sql`
    select (select version from usage_versions where organization_uuid = ${organizationUuid}) as version,
      (select count(*) from eval_runs where organization_uuid = ${organizationUuid}) as started,
      (select max(started_at) from eval_runs where organization_uuid = ${organizationUuid}) as latest`)) as unknown as Rows<{
    version: string | number | null;
    started: string | number;
    latest: string | Date | null;
  }>;
  const r = result.rows[0];
  return JSON.stringify([
    Number(r?.version ?? 0),
    Number(r?.started ?? 0),
    r?.latest ? new Date(r.latest).toISOString() : null,
  ]);
}

/**
 * A least-recently-used map of cycles' runs, bounded by the runs it holds. Concurrent requests for
 * one key share one grouping; a failed one is forgotten, so the next request tries again.
 */
export class EvalRunsCache {
  private readonly entries = new Map<string, { value: Promise<CycleRun[]>; weight: number }>();
  private weight = 0;
  constructor(readonly maxRuns = 200_000) {}

  get size() {
    return this.entries.size;
  }

  get(key: string, compute: () => Promise<CycleRun[]>): Promise<CycleRun[]> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    if (this.maxRuns <= 0) return compute();
    const entry = { value: compute(), weight: 1 };
    this.entries.set(key, entry);
    this.weight += 1;
    entry.value.then(
      (runs) => {
        if (this.entries.get(key) !== entry) return;
        this.weight += runs.length - entry.weight;
        entry.weight = runs.length;
        this.evict();
      },
      () => {
        if (this.entries.get(key) !== entry) return;
        this.entries.delete(key);
        this.weight -= entry.weight;
      },
    );
    this.evict();
    return entry.value;
  }

  private evict() {
    for (const [key, e] of this.entries) {
      if (this.weight <= this.maxRuns || this.entries.size <= 1) break;
      this.entries.delete(key);
      this.weight -= e.weight;
    }
  }
}

/** The cycle's runs: kept ones while nothing they depend on changed, else grouped (and kept). */
export async function cachedCycleRuns(db: Db, cache: EvalRunsCache, cycle: Cycle): Promise<CycleRun[]> {
  const fresh = await freshness(db, cycle.organizationUuid);
  const key = JSON.stringify([
    cycle.organizationUuid,
    cycle.billingCycleUuid,
    cycle.startDate,
    cycle.endDate,
    fresh,
  ]);
  return cache.get(key, () => cycleRuns(db, cycle));
}
