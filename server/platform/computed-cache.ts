// The read paths that keep computed answers between requests (Billing & Usage page data, a cycle's
// eval runs and costs) bound memory by what the answers hold, not by how many there are, and never
// run one computation twice for concurrent requests of a key. Both are lru-cache's: maxSize with a
// sizeCalculation, and fetch(), whose context here is the computation itself.
import { LRUCache } from "lru-cache";

/** `forceFetch(key, { context: compute })`: the kept answer, or `compute`'s (shared, then kept). */
export type ComputedCache<T extends {}> = LRUCache<string, T, () => Promise<T>>;

/**
 * A least-recently-used cache of computations bounded by the weight of their answers (e.g. rows).
 * A failed computation is not kept, so the next request tries again; an answer heavier than the
 * whole bound is answered but not kept.
 */
export function computedCache<T extends {}>(
  maxWeight: number,
  weightOf: (value: T) => number,
): ComputedCache<T> {
  return new LRUCache<string, T, () => Promise<T>>({
    maxSize: Math.max(1, maxWeight),
    // lru-cache wants a positive whole size: an empty answer still takes a slot.
    sizeCalculation: (value) => Math.max(1, Math.ceil(weightOf(value))),
    fetchMethod: (_key, _stale, { context }) => context(),
  });
}
