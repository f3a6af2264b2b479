// One bounded, shared-computation cache for the read paths that keep computed answers between
// requests (Billing & Usage page data, a cycle's eval runs): they must bound memory by what the
// answers hold rather than by how many there are, and must not run one computation twice when
// concurrent requests ask for the same key.

/**
 * A least-recently-used map of computations, bounded by the weight of what they resolved to (e.g.
 * rows). Concurrent requests for one key share one computation; a failed one is forgotten, so the
 * next request tries again. A pending entry weighs 1 until it resolves.
 */
export class WeightedLru<T> {
  private readonly entries = new Map<string, { value: Promise<T>; weight: number }>();
  private weight = 0;
  constructor(
    readonly maxWeight: number,
    private readonly weightOf: (value: T) => number,
  ) {}

  get size() {
    return this.entries.size;
  }

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    if (this.maxWeight <= 0) return compute();
    const entry = { value: compute(), weight: 1 };
    this.entries.set(key, entry);
    this.weight += entry.weight;
    entry.value.then(
      (value) => {
        if (this.entries.get(key) !== entry) return;
        const weight = this.weightOf(value);
        this.weight += weight - entry.weight;
        entry.weight = weight;
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
      if (this.weight <= this.maxWeight || this.entries.size <= 1) break;
      this.entries.delete(key);
      this.weight -= e.weight;
    }
  }
}
