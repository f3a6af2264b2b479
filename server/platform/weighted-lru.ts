// One bounded, shared-computation cache for the read paths that keep computed answers between
// requests (Billing & Usage page data, a cycle's eval runs): they must bound memory by what the
// answers hold rather than by how many there are, and must not run one computation twice when
// concurrent requests ask for the same key. The bounded, least-recently-used store is lru-cache's
// (by size); what is ours is sharing a computation in flight.
import { LRUCache } from "lru-cache";

/**
 * A least-recently-used map of computations, bounded by the weight of what they resolved to (e.g.
 * rows). Concurrent requests for one key share one computation; a failed one is forgotten, so the
 * next request tries again. An answer heavier than the whole bound is answered but not kept.
 */
export class WeightedLru<T> {
  readonly #values: LRUCache<string, { value: T }> | null;
  readonly #computing = new Map<string, Promise<T>>();

  constructor(
    readonly maxWeight: number,
    weightOf: (value: T) => number,
  ) {
    this.#values =
      maxWeight > 0
        ? new LRUCache({
            maxSize: maxWeight,
            // lru-cache wants a positive whole size: an empty answer still takes a slot.
            sizeCalculation: (box) => Math.max(1, Math.ceil(weightOf(box.value))),
          })
        : null;
  }

  /** Kept answers and computations in flight. */
  get size() {
    return (this.#values?.size ?? 0) + this.#computing.size;
  }

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const values = this.#values;
    if (!values) return compute();
    const hit = values.get(key);
    if (hit) return Promise.resolve(hit.value);
    const running = this.#computing.get(key);
    if (running) return running;
    const computed = compute();
    this.#computing.set(key, computed);
    computed.then(
      (value) => {
        this.#computing.delete(key);
        values.set(key, { value });
      },
      () => this.#computing.delete(key),
    );
    return computed;
  }
}
