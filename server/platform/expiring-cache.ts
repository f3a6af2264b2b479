// A bounded map of values that expire, in front of the database. The bounded, expiring,
// least-recently-used store is lru-cache's; what is ours is how loads behave around it: concurrent
// loads of a key share one call, a load in flight when its key is dropped is not stored (an
// invalidation is never undone by a read that started before the change), and a busy key is
// reloaded in the background before it expires.
import { LRUCache } from "lru-cache";

/** Options of an expiring cache. */
export type ExpiringCacheOptions<K, V> = {
  /** How long a loaded value is served without loading again. */
  ttlMs: number;
  /** At most this many values; past it, the least recently used goes. */
  max: number;
  load(key: K): Promise<V>;
  /**
   * Past this age a hit still answers the cached value but starts a reload in the background,
   * so that a busy key does not stall all its callers on a load when it expires (the value is
   * never served past ttlMs either way).
   */
  refreshAfterMs?: number;
  /** Whether to keep a loaded value (e.g. not a "not found"); kept by default. */
  keep?(value: V): boolean;
  /** The clock, in milliseconds (tests). */
  now?(): number;
};

/**
 * `get` answers a plain value on a hit (no promise on the hot path), else a promise of it.
 */
export function createExpiringCache<K extends {}, V>(o: ExpiringCacheOptions<K, V>) {
  const values = new LRUCache<K, { value: V }>({
    max: o.max,
    ttl: o.ttlMs,
    // The clock read on every check, not one cached for a millisecond.
    ttlResolution: 0,
    ...(o.now ? { perf: { now: o.now } } : {}),
  });
  // Loads in flight: `loading` for callers waiting on a miss, `refreshing` for background reloads
  // of a value still served. A load stores its answer only if it is still the one listed.
  const loading = new Map<K, Promise<V>>();
  const refreshing = new Map<K, Promise<V>>();

  function load(key: K, into: Map<K, Promise<V>>): Promise<V> {
    const loaded = o.load(key);
    into.set(key, loaded);
    loaded.then(
      (value) => {
        if (into.get(key) !== loaded) return;
        into.delete(key);
        if (o.keep && !o.keep(value)) values.delete(key);
        else values.set(key, { value });
      },
      // A failed load is forgotten (the next call tries again); a failed reload leaves the value
      // to expire as it would have.
      () => {
        if (into.get(key) === loaded) into.delete(key);
      },
    );
    return loaded;
  }

  return {
    get(key: K): V | Promise<V> {
      const hit = values.get(key);
      if (hit) {
        const age = o.ttlMs - values.getRemainingTTL(key);
        if (o.refreshAfterMs !== undefined && age >= o.refreshAfterMs && !refreshing.has(key))
          load(key, refreshing);
        return hit.value;
      }
      return loading.get(key) ?? load(key, loading);
    },

    delete(key: K): void {
      values.delete(key);
      loading.delete(key);
      refreshing.delete(key);
    },

    /** Drops every value that matches, and every load in flight (its answer is not stored). */
    deleteWhere(match: (value: V, key: K) => boolean): void {
      const matching = [...values.entries()].filter(([k, box]) => match(box.value, k)).map(([k]) => k);
      for (const k of matching) {
        values.delete(k);
        refreshing.delete(k);
      }
      loading.clear();
    },

    clear(): void {
      values.clear();
      loading.clear();
      refreshing.clear();
    },

    /** Values kept and loads waited on. */
    get size(): number {
      return values.size + loading.size;
    },
  };
}

export type ExpiringCache<K extends {}, V> = ReturnType<typeof createExpiringCache<K, V>>;
