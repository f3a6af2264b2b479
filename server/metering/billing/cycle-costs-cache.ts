// The billing cycles list's costs per cycle and workspace, kept until the organization's next
// usage write, as the Billing & Usage page's data is (usage-cache.ts): the key holds the
// organization's usage version, read BEFORE the costs through the same database handle (with the
// cycles: cycles.ts' cyclesOrCurrentAtVersion), so an entry never holds costs older than its key.
// The sum over the coarse rollup was the list's costliest statement (every day of every cycle, per
// workspace); the workspace groups and the payments, which change without a usage write, are still
// read every time.
import { type ComputedCache, computedCache } from "../../platform/computed-cache";
import { type CycleCost, type CycleCostsReader, cycleWorkspaceCosts } from "./cycle-totals";

/** Costs per (organization, usage version, cycles and their bounds), bounded by the rows held. */
export type CycleCostsCache = ComputedCache<CycleCost[]>;
export const createCycleCostsCache = (maxRows = 100_000): CycleCostsCache =>
  computedCache(maxRows, (rows) => 1 + rows.length);

/**
 * cycleWorkspaceCosts through `cache`, at a usage version the caller has read through the same
 * handle before calling (cyclesOrCurrentAtVersion reads it with the cycles).
 */
export const cachedCycleCostsAt =
  (cache: CycleCostsCache, version: number): CycleCostsReader =>
  (db, org, cycles) => {
    // A billing command can move a cycle's bounds without writing usage: they are in the key.
    const key = JSON.stringify([
      org,
      version,
      cycles.map((c) => [c.billingCycleUuid, c.startDate, c.endDate]),
    ]);
    return cache.forceFetch(key, { context: () => cycleWorkspaceCosts(db, org, cycles) });
  };
