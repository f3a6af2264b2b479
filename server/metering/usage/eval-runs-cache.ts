// The Eval Runs list's runs of a cycle, grouped once and kept until the organization's usage or its
// started runs change: grouping a busy month's run events takes seconds (a scan of the month's
// partition), and paging, sorting and searching the list then work on the kept rows. The key holds
// the organization's usage version (raised in every transaction that writes usage, rollups.ts) and
// the count and latest start of its started runs, read in one query BEFORE the rows, through the
// same handle: rows read after seeing a key are at least as new as the key. Workspace names are
// never kept (a rename writes no usage): the caller looks them up per request.
import { sql } from "drizzle-orm";
import { type ComputedCache, computedCache } from "../../platform/computed-cache";
import type { Db } from "../../platform/database";
import type { Cycle } from "../billing/cycles";
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

/** Cycles' runs, bounded by the runs they hold (see computed-cache.ts). */
export type EvalRunsCache = ComputedCache<CycleRun[]>;
export const createEvalRunsCache = (maxRuns = 200_000): EvalRunsCache =>
  computedCache(maxRuns, (runs) => runs.length);

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
  return cache.forceFetch(key, { context: () => cycleRuns(db, cycle) });
}
