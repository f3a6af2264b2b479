import { inArray, sql } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import { account, apiKey, member, organization, user } from "../../db/schema";
import type { Db } from "../../platform/database";
import { loadingCache } from "../../platform/loading-cache";
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
/**
 * How often the keys used meanwhile get their last_used_at, in one UPDATE: it is informational
 * (shown to the key's owner), so it may lag by this much.
 */
export const LAST_USED_FLUSH_MS = 15_000;
const MAX_KEYS = 10_000;

type Watch = (h: ChangeWatcher) => () => Promise<void>;

/**
 * A digest of every row a key's validation reads (the unexpired key row without its last use, its
 * owner, the owner's password credential, memberships and their organizations), in one statement;
 * null when the key is unknown or expired. Equal digests mean the lookup would answer the same.
 */
export async function keyFingerprint(db: Db, tokenHash: string): Promise<string | null> {
  const rows = await db
    .select({
      fp: sql<string>`md5(concat_ws('|', ${apiKey.id}, ${apiKey.orgId}, ${apiKey.metadata}, ${apiKey.expiresAt}::text,
        row_to_json("user")::text,
        (select count(*) from ${account} where ${account.userId} = ${user.id} and ${account.providerId} = 'credential'),
        (select string_agg(row_to_json("member")::text || row_to_json("organization")::text, ',' order by ${member.id})
           from ${member} join ${organization} on ${organization.id} = ${member.organizationId}
          where ${member.userId} = ${user.id})))`,
    })
    .from(apiKey)
    .innerJoin(user, sql`${user.id} = ${apiKey.userId}`)
    .where(
      sql`${apiKey.tokenHash} = ${tokenHash} and (${apiKey.expiresAt} is null or ${apiKey.expiresAt} > now())`,
    );
  return rows[0]?.fp ?? null;
}

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
  // The load is keyed by the hash but needs the token: handed over next to the hash for the
  // duration of one synchronous cache.get (a variable, not a map: nothing to add and delete per call).
  let handingHash: string | null = null;
  let handingToken = "";
  // The digest each cached key was loaded under (keyFingerprint). A reload first reads the digest
  // (one statement) and keeps the validated key when it is unchanged, instead of the full lookup
  // (five statements): the rows it depends on are what the digest covers.
  const loadedUnder = new LRUCache<string, { fp: string; value: ValidatedApiKey }>({ max: MAX_KEYS });
  const load = async (hash: string, token: string | undefined): Promise<ValidatedApiKey | null> => {
    const fp = await keyFingerprint(db, hash);
    if (fp === null) {
      loadedUnder.delete(hash);
      return null;
    }
    const known = loadedUnder.get(hash);
    if (known && known.fp === fp) return known.value;
    // Read after the digest: a change in between makes the next reload look again.
    const value = token === undefined ? null : await lookup(token);
    if (value) loadedUnder.set(hash, { fp, value });
    else loadedUnder.delete(hash);
    return value;
  };
  const cache = loadingCache<string, ValidatedApiKey | null>({
    ttlMs: opts.ttlMs ?? API_KEY_CACHE_TTL_MS,
    // A busy key is read again in the background after two thirds of its lifetime, so its calls
    // never all wait on the reload when it expires.
    refreshAfterMs: ((opts.ttlMs ?? API_KEY_CACHE_TTL_MS) * 2) / 3,
    max: MAX_KEYS,
    load: (hash) => load(hash, handingHash === hash ? handingToken : undefined),
    // Unknown keys are not remembered: a flood of made-up keys must not push real ones out.
    keep: (v) => v !== null,
  });
  const used = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const unwatch = opts.watch?.({
    changed: (userId) => cache.dropWhere((v) => v?.user.id === userId),
    notice: (topic, id) => {
      if (topic === "api_key") cache.cache.delete(id);
      else if (topic === "org") cache.dropWhere((v) => v?.org?.id === id);
    },
    reset: () => cache.cache.clear(),
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

  /** A cached (or just loaded) key checked for expiry, and its use noted for last_used_at. */
  function noteUse(hash: string, found: ValidatedApiKey | null): ValidatedApiKey | null {
    if (!found) return null;
    if (found.expiresAt && found.expiresAt.getTime() <= Date.now()) {
      cache.cache.delete(hash);
      return null;
    }
    used.add(found.apiKeyId);
    if (!timer && !closed) {
      timer = setInterval(() => void flush(), opts.flushMs ?? LAST_USED_FLUSH_MS);
      timer.unref();
    }
    return found;
  }

  return {
    /**
     * The key's identity, or null when it is unknown, expired, deleted or its owner lost access.
     * A key in the cache is answered as a plain value, not a promise: the x-api-key path of every
     * call then takes no more promises and microtask turns than the bearer path (on a cache hit
     * neither leaves the process, so those turns were most of the difference between them).
     */
    validate(token: string): ValidatedApiKey | null | Promise<ValidatedApiKey | null> {
      if (!isWellFormedToken(token)) return null;
      const hash = hashApiKeyToken(token);
      // The cache's load reads the token synchronously when it starts (a miss, or a background
      // reload of a busy key), so it is only needed for the duration of this call.
      handingHash = hash;
      handingToken = token;
      let found: ValidatedApiKey | null | Promise<ValidatedApiKey | null>;
      try {
        found = cache.get(hash);
      } finally {
        handingHash = null;
        handingToken = "";
      }
      return found instanceof Promise ? found.then((f) => noteUse(hash, f)) : noteUse(hash, found);
    },

    /** Writes the pending "last used" times now. */
    flush,

    /** Ends the flushing (writing what is pending) and the listening. */
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = null;
      await flush();
      cache.cache.clear();
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
