import { inArray, sql } from "drizzle-orm";
import { apiKey } from "../../db/schema";
import type { Db } from "../../platform/database";
import { createExpiringCache } from "../../platform/expiring-cache";
import { announceChange, type ChangeWatcher, notifyChange } from "../../platform/token-revocation";
import type { ValidatedApiKey } from "./service";
import { hashApiKeyToken, isWellFormedToken } from "./token";

/**
 * How long a validated key is trusted without reading it again. Deleting a key drops it at once
 * in this process and, through NOTIFY, in the others; so does any change of its owner's rights
 * (a token-version change: removal, role change, disabling, deletion). This lifetime only bounds
 * how long a missed notice leaves a key working elsewhere.
 */
export const API_KEY_CACHE_TTL_MS = 3000;
/** How often the keys used meanwhile get their last_used_at, in one UPDATE. */
export const LAST_USED_FLUSH_MS = 2000;
const MAX_KEYS = 10_000;

type Watch = (h: ChangeWatcher) => () => Promise<void>;

/**
 * Validated API keys in memory, keyed by the token's SHA-256 (the plain token is never kept), in
 * front of `lookup` (the key row, its owner, memberships and organization: five statements). The
 * "last used" time is collected here and written for all keys used meanwhile every
 * LAST_USED_FLUSH_MS and on close, instead of one UPDATE per call.
 */
export function createApiKeyValidation(
  db: Db,
  lookup: (token: string) => Promise<ValidatedApiKey | null>,
  opts: { watch?: Watch; ttlMs?: number; flushMs?: number } = {},
) {
  // The load is keyed by the hash but needs the token: handed over next to the hash for the call.
  const tokens = new Map<string, string>();
  const cache = createExpiringCache<string, ValidatedApiKey | null>({
    ttlMs: opts.ttlMs ?? API_KEY_CACHE_TTL_MS,
    // A busy key is read again in the background after two thirds of its lifetime, so its calls
    // never all wait on the reload when it expires.
    refreshAfterMs: ((opts.ttlMs ?? API_KEY_CACHE_TTL_MS) * 2) / 3,
    max: MAX_KEYS,
    load: (hash) => lookup(tokens.get(hash) ?? ""),
    // Unknown keys are not remembered: a flood of made-up keys must not push real ones out.
    keep: (v) => v !== null,
  });
  const used = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const unwatch = opts.watch?.({
    changed: (userId) => cache.deleteWhere((v) => v?.user.id === userId),
    notice: (topic, id) => {
      if (topic === "api_key") cache.delete(id);
      else if (topic === "org") cache.deleteWhere((v) => v?.org?.id === id);
    },
    reset: () => cache.clear(),
  });

  async function flush() {
    if (used.size === 0) return;
    const ids = [...used];
    used.clear();
    try {
      await db.update(apiKey).set({ lastUsedAt: sql`now()` }).where(inArray(apiKey.id, ids));
    } catch {
      // The database is away: the next round tries again (a deleted key's id matches nothing).
      for (const id of ids) used.add(id);
    }
  }

  return {
    /** The key's identity, or null when it is unknown, expired, deleted or its owner lost access. */
    async validate(token: string): Promise<ValidatedApiKey | null> {
      if (!isWellFormedToken(token)) return null;
      const hash = hashApiKeyToken(token);
      tokens.set(hash, token);
      let found: ValidatedApiKey | null;
      try {
        found = await cache.get(hash);
      } finally {
        tokens.delete(hash);
      }
      if (!found) return null;
      if (found.expiresAt && found.expiresAt.getTime() <= Date.now()) {
        cache.delete(hash);
        return null;
      }
      used.add(found.apiKeyId);
      if (!timer && !closed) {
        timer = setInterval(() => void flush(), opts.flushMs ?? LAST_USED_FLUSH_MS);
        timer.unref();
      }
      return found;
    },

    /** Writes the pending "last used" times now. */
    flush,

    /** Ends the flushing (writing what is pending) and the listening. */
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = null;
      await flush();
      cache.clear();
      await unwatch?.();
    },
  };
}

export type ApiKeyValidation = ReturnType<typeof createApiKeyValidation>;

/**
 * After a key's deletion committed: every process's validated-key cache forgets it (this one at
 * once, the others through NOTIFY).
 */
export async function forgetApiKey(db: Db, tokenHash: string): Promise<void> {
  announceChange(db, "api_key", tokenHash);
  await notifyChange(db, "api_key", tokenHash).catch(() => {});
}
