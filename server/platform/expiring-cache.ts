/** Options of an expiring cache. */
export type ExpiringCacheOptions<K, V> = {
  /** How long a loaded value is served without loading again. */
  ttlMs: number;
  /** At most this many keys; past it, expired entries are swept, then the oldest dropped. */
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
  now?(): number;
};

type Entry<V> = {
  value: V | undefined;
  expires: number;
  pending: Promise<V> | null;
  refreshing: boolean;
};

/**
 * Makes room for one more entry in a map bounded to `max` entries: when full, expired entries are
 * swept, then the oldest insertions go (a map iterates in insertion order).
 */
export function makeRoomIn<K, E>(map: Map<K, E>, max: number, expired: (e: E) => boolean) {
  if (map.size < max) return;
  for (const [k, e] of map) if (expired(e)) map.delete(k);
  for (const k of map.keys()) {
    if (map.size < max) break;
    map.delete(k);
  }
}

/**
 * A bounded map of values that expire, in front of the database. Concurrent loads of one key
 * share one call. Dropping a key (or everything) while its load is in flight means that load's
 * answer is not stored: an invalidation is never undone by a read that started before the change.
 * `get` answers a plain value on a hit (no promise on the hot path), else a promise of it.
 */
export function createExpiringCache<K, V>(o: ExpiringCacheOptions<K, V>) {
  const map = new Map<K, Entry<V>>();
  const now = o.now ?? Date.now;

  function makeRoom() {
    const t = now();
    makeRoomIn(map, o.max, (e) => !e.pending && e.expires <= t);
  }

  /** Reloads a live entry in the background; its answer replaces the entry unless it was dropped. */
  function refresh(key: K, e: Entry<V>) {
    e.refreshing = true;
    o.load(key).then(
      (value) => {
        if (map.get(key) !== e) return;
        if (o.keep && !o.keep(value)) map.delete(key);
        else map.set(key, { value, expires: now() + o.ttlMs, pending: null, refreshing: false });
      },
      () => {
        // The entry expires as it would have; the next call after that loads in the foreground.
        e.refreshing = false;
      },
    );
  }

  return {
    get(key: K): V | Promise<V> {
      const e = map.get(key);
      if (e) {
        if (e.pending) return e.pending;
        const t = now();
        if (e.expires > t) {
          if (o.refreshAfterMs !== undefined && !e.refreshing && t >= e.expires - o.ttlMs + o.refreshAfterMs)
            refresh(key, e);
          return e.value as V;
        }
        map.delete(key);
      }
      const entry: Entry<V> = { value: undefined, expires: 0, pending: null, refreshing: false };
      entry.pending = o.load(key).then(
        (value) => {
          if (map.get(key) === entry) {
            if (o.keep && !o.keep(value)) map.delete(key);
            else {
              entry.value = value;
              entry.expires = now() + o.ttlMs;
              entry.pending = null;
            }
          }
          return value;
        },
        (err) => {
          if (map.get(key) === entry) map.delete(key);
          throw err;
        },
      );
      makeRoom();
      map.set(key, entry);
      return entry.pending;
    },

    delete(key: K): void {
      map.delete(key);
    },

    /** Drops every entry whose loaded value matches (entries still loading are dropped too). */
    deleteWhere(match: (value: V, key: K) => boolean): void {
      for (const [k, e] of map) if (e.pending || match(e.value as V, k)) map.delete(k);
    },

    clear(): void {
      map.clear();
    },

    get size(): number {
      return map.size;
    },
  };
}

export type ExpiringCache<K, V> = ReturnType<typeof createExpiringCache<K, V>>;
