// The caches in front of the database and the identity gateway (validated API keys, organizations'
// workspaces, the current user's parts) keep loaded values for a few seconds. The store is
// lru-cache's: the bound (max), the lifetime (ttl), and fetch(), which shares one load among
// concurrent callers of a key. Its options give the guarantees these caches need:
// - ignoreFetchAbort: a key deleted (or the cache cleared) while its load is in flight does not
//   store that load's answer, which still answers its callers, so an invalidation is never undone
//   by a read that started before the change;
// - fetch's forceRefresh with allowStale: a busy key is reloaded in the background before it
//   expires, its callers served the current value meanwhile (never one past its lifetime).
import { LRUCache } from "lru-cache";

/** A loaded value, boxed: lru-cache keeps no null, and "not found" (null) is an answer too. */
type Loaded<V> = { value: V };

export type LoadingCacheOptions<K, V> = {
  /** How long a loaded value is served without loading again. */
  ttlMs: number;
  /** At most this many values; past it, the least recently used goes. */
  max: number;
  load(key: K): Promise<V>;
  /** Past this age a hit starts a background reload (the value is never served past ttlMs). */
  refreshAfterMs?: number;
  /** Whether to keep a loaded value (e.g. not a "not found"); kept by default. */
  keep?(value: V): boolean;
  /** The clock, in milliseconds (tests). */
  now?(): number;
};

/**
 * `get` answers a plain value on a hit (no promise on a hot path), else fetch()'s promise.
 * `cache` is the lru-cache itself, for delete(), clear() and size.
 */
export function loadingCache<K extends {}, V>(o: LoadingCacheOptions<K, V>) {
  // Raised by dropWhere: a load that started before it may have read what it drops.
  let generation = 0;
  const cache: LRUCache<K, Loaded<V>> = new LRUCache<K, Loaded<V>>({
    max: o.max,
    ttl: o.ttlMs,
    // The clock read on every check, not one cached for a millisecond.
    ttlResolution: 0,
    ...(o.now ? { perf: { now: o.now } } : {}),
    ignoreFetchAbort: true,
    // A failed background reload leaves the value to expire as it would have.
    noDeleteOnFetchRejection: true,
    fetchMethod: async (key) => {
      const startedIn = generation;
      const value = await o.load(key);
      // Deleting the key aborts this very load: its answer is returned, and not stored.
      if (startedIn !== generation || (o.keep && !o.keep(value))) cache.delete(key);
      return { value };
    },
  });

  return {
    cache,

    get(key: K): V | Promise<V> {
      const hit = cache.get(key);
      if (!hit) return cache.fetch(key).then((loaded) => (loaded as Loaded<V>).value);
      if (o.refreshAfterMs !== undefined && o.ttlMs - cache.getRemainingTTL(key) >= o.refreshAfterMs)
        void cache.fetch(key, { forceRefresh: true, allowStale: true });
      return hit.value;
    },

    /** Drops every value that matches; a load in flight stores nothing (it may match once loaded). */
    dropWhere(match: (value: V, key: K) => boolean): void {
      generation += 1;
      // dump(), not entries(): it also lists the values being reloaded in the background.
      for (const [k, entry] of cache.dump()) if (match(entry.value.value, k)) cache.delete(k);
    },
  };
}

export type LoadingCache<K extends {}, V> = ReturnType<typeof loadingCache<K, V>>;
