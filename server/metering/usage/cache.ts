// The Billing & Usage page's data, computed once per (organization, cycle, filters, grouping) and
// kept until the organization's next usage write. Each entry's key holds the organization's usage
// version (usage_versions, raised in every transaction that writes usage: rollups.ts), read in the
// statement that finds the cycle (cycles.ts' findCycleAtVersion), through the same database handle
// as the data and BEFORE it: data read after seeing version v is at least as new as v, so an entry
// never holds figures older than its key, and a committed write changes the key every API process
// reads next.
import { eq } from "drizzle-orm";
import type { Grouping } from "../../../contract/usage-schemas";
import { workspaces } from "../../db/schema";
import { type ComputedCache, computedCache } from "../../platform/computed-cache";
import type { Db } from "../../platform/database";
import type { Cycle } from "../billing/cycles";
import { computePageData, type PageData, type RawOptions } from "./aggregates";
import { NO_FILTERS, type UsageFilters } from "./filters";
import { workspaceMatches } from "./sql";

/** Roughly how much an entry holds: its rows. */
const weightOf = (d: PageData) =>
  1 +
  d.series.length +
  d.byOperation.length +
  d.byWorkspace.length +
  d.adjusted.series.length +
  d.adjusted.byOperation.length +
  d.adjusted.byWorkspace.length +
  (d.options
    ? d.options.evalTypes.length +
      d.options.operations.length +
      d.options.modalities.length +
      d.options.workspaces.length
    : 0);

/**
 * Page data, bounded by the rows its entries hold (see computed-cache.ts); the page's three calls
 * arrive together and share one computation.
 */
export type PageDataCache = ComputedCache<PageData>;
export const createPageDataCache = (maxRows = 200_000): PageDataCache => computedCache(maxRows, weightOf);

const keyOf = (cycle: Cycle, version: number, f: UsageFilters, grouping: Grouping, extra: unknown) =>
  JSON.stringify([
    cycle.organizationUuid,
    cycle.billingCycleUuid,
    // A billing command can move a cycle's bounds without writing usage.
    cycle.startDate,
    cycle.endDate,
    version,
    grouping,
    f,
    extra,
  ]);

/**
 * The page's data for a cycle, filter set and grouping at the organization's usage `version`, read
 * through the same handle before calling this (findCycleAtVersion reads it with the cycle): from
 * the cache when the usage has not changed since it was computed, else computed (and kept).
 */
export async function pageDataAt(
  db: Db,
  cache: PageDataCache,
  cycle: Cycle,
  f: UsageFilters,
  grouping: Grouping,
  version: number,
): Promise<PageData & { options: RawOptions }> {
  // A search also matches workspace names, which change without a usage write: the workspaces it
  // matches are part of its key (one query, as before).
  const matches = f.search ? await workspaceMatches(db, cycle.organizationUuid, f.search) : null;
  const data = await cache.forceFetch(keyOf(cycle, version, f, grouping, matches), {
    context: () => computePageData(db, cycle, f, grouping, matches),
  });
  if (data.options) return data as PageData & { options: RawOptions };
  // A search reads raw events; the filter options (values present in the cycle, whatever the
  // filters) come from the unfiltered page, cached under the same version.
  const all = await pageDataAt(db, cache, cycle, NO_FILTERS, "daily", version);
  return { ...data, options: all.options };
}

/**
 * Where a read finds an organization's workspace names, deleted workspaces' too: the API passes its
 * workspace cache (workspaceNamesFrom), which a rename drops at once; alone, workspaceNames reads them.
 */
export type WorkspaceNames = (organizationUuid: string) => Promise<Map<string, string>>;

/** The organization's workspace names, read from the database each time. */
export async function workspaceNames(db: Db, organizationUuid: string): Promise<Map<string, string>> {
  const rows = await db
    .select({ id: workspaces.workspaceUuid, name: workspaces.name })
    .from(workspaces)
    .where(eq(workspaces.organizationUuid, organizationUuid));
  return new Map(rows.map((r) => [r.id, r.name]));
}
