import type { IdentityGateway } from "../platform/identity-gateway";

/** How long a user's token version is trusted without asking identity again (at most 4 s). */
export const TOKEN_VERSION_TTL_MS = 3000;
// Past this many cached users, expired entries are swept on the next lookup.
const SWEEP_AT = 10_000;

type Entry = { version: number | null; expires: number; pending: Promise<number | null> | null };

/**
 * Whether an access token's `tv` is still the user's current token version. Versions are cached
 * per user for TOKEN_VERSION_TTL_MS (so the bearer path stays offline on almost every call) and
 * dropped at once when identity announces a change (this process's bus, and PostgreSQL NOTIFY
 * from other processes when the gateway can listen). Concurrent lookups of one user share one
 * call. A token newer than the cached version means the cache is behind: it is asked again.
 */
export function createTokenVersionCheck(gateway: IdentityGateway, ttlMs = TOKEN_VERSION_TTL_MS) {
  const cache = new Map<string, Entry>();
  // Bumped by reset(): a lookup that started before a reset must not store its answer.
  let generation = 0;
  let unwatch: (() => Promise<void>) | null = null;
  let watching = false;
  let closed = false;

  const watch = () => {
    watching = true;
    unwatch =
      gateway.watchTokenVersions?.({
        changed: (userId) => cache.delete(userId),
        reset: () => {
          generation++;
          cache.clear();
        },
      }) ?? null;
  };

  function lookup(userId: string): Promise<number | null> {
    const gen = generation;
    const entry: Entry = { version: null, expires: 0, pending: null };
    entry.pending = gateway.tokenVersion(userId).then(
      (version) => {
        if (cache.get(userId) === entry && gen === generation) {
          entry.version = version;
          entry.expires = Date.now() + ttlMs;
          entry.pending = null;
        }
        return version;
      },
      (err) => {
        if (cache.get(userId) === entry) cache.delete(userId);
        throw err;
      },
    );
    if (cache.size >= SWEEP_AT) {
      const now = Date.now();
      for (const [k, e] of cache) if (!e.pending && e.expires <= now) cache.delete(k);
    }
    cache.set(userId, entry);
    return entry.pending;
  }

  const settle = async (tv: number, version: Promise<number | null>) => {
    const v = await version;
    return v !== null && tv >= v;
  };

  return {
    /**
     * Whether the token (minted with version `tv`) still counts: a plain boolean on a cache hit
     * (no promise on the hot path), else a promise of it. Tokens are minted from the stored
     * version, so a token newer than a cached or in-flight answer means that answer is behind:
     * identity is asked again.
     */
    check(userId: string, tv: number): boolean | Promise<boolean> {
      if (!watching && !closed) watch();
      const e = cache.get(userId);
      if (e?.pending)
        return settle(
          tv,
          e.pending.then((v) => (v !== null && tv > v ? lookup(userId) : v)),
        );
      if (e && e.expires > Date.now()) {
        if (e.version === null || tv < e.version) return false;
        if (tv === e.version) return true;
      }
      return settle(tv, lookup(userId));
    },

    async close() {
      closed = true;
      const stop = unwatch;
      unwatch = null;
      cache.clear();
      await stop?.();
    },
  };
}

export type TokenVersionCheck = ReturnType<typeof createTokenVersionCheck>;
