import { createHash } from "node:crypto";
import { lt, sql } from "drizzle-orm";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { apiRateBuckets } from "../db/schema";
import type { Db } from "../platform/database";
import { ApiError } from "../platform/errors";
import type { Authenticate, Principal } from "./principal";

/** Requests per minute; 0 turns a limit off. */
export type ApiRateLimits = { perCredential: number; perOrg: number };

/** Defaults of API_RATE_LIMIT_PER_CREDENTIAL and API_RATE_LIMIT_PER_ORG (requests per minute). */
export const DEFAULT_API_RATE_LIMITS: ApiRateLimits = { perCredential: 6_000, perOrg: 30_000 };

const WINDOW_MS = 60_000;
/** A key's local count is written to the shared table at least this often while it is used. */
const FLUSH_MS = 1_000;
/** Stored windows older than this are deleted (at most once per CLEANUP_MS per process). */
const KEEP_MS = 60 * 60_000;
const CLEANUP_MS = 10 * 60_000;
const MAX_LOCAL_KEYS = 50_000;

type Bucket = {
  windowStart: number;
  /** The window's count in the shared table as last read (every process's flushed hits). */
  shared: number;
  /** This process's hits not yet added to the shared table. */
  pending: number;
  lastFlush: number;
  flushing: Promise<void> | null;
};

export type RateDecision = { limit: number; remaining: number; resetSeconds: number; allowed: boolean };

/**
 * Fixed one-minute windows counted per key and shared by every API process through
 * api_rate_buckets. The hot path is a map lookup: each process counts locally and adds its count
 * to the shared row with one atomic upsert every `flushEvery` hits or every second, reading back
 * the window's total. Processes therefore see each other's hits up to a second (or `flushEvery`
 * hits) late: the shared limit is approximate by that much, exact for small limits (flushEvery 1).
 * A database failure never refuses a call: the local count alone decides until it is back.
 */
export function createApiRateLimiter(db: Db, now: () => number = Date.now) {
  const buckets = new Map<string, Bucket>();
  let lastCleanup = 0;

  async function flush(key: string, b: Bucket) {
    const add = b.pending;
    if (add === 0) return;
    b.pending = 0;
    b.lastFlush = now();
    const windowStart = new Date(b.windowStart);
    try {
      const [row] = await db
        .insert(apiRateBuckets)
        .values({ key, count: add, windowStart })
        .onConflictDoUpdate({
          target: apiRateBuckets.key,
          set: {
            // A newer window (another process's clock ahead) counts as the same one; an older one restarts.
            count: sql`case when ${apiRateBuckets.windowStart} >= excluded.window_start then ${apiRateBuckets.count} + excluded.count else excluded.count end`,
            windowStart: sql`greatest(${apiRateBuckets.windowStart}, excluded.window_start)`,
          },
        })
        .returning({ count: apiRateBuckets.count });
      if (row && b.windowStart === windowStart.getTime()) b.shared = Math.max(b.shared + add, row.count);
    } catch {
      // Fail open: keep the hits as this process's own.
      if (b.windowStart === windowStart.getTime()) b.shared += add;
    }
  }

  function cleanup(t: number) {
    if (t - lastCleanup < CLEANUP_MS) return;
    lastCleanup = t;
    if (buckets.size > MAX_LOCAL_KEYS / 2)
      for (const [k, b] of buckets) if (b.windowStart < t - WINDOW_MS) buckets.delete(k);
    db.delete(apiRateBuckets)
      .where(lt(apiRateBuckets.windowStart, new Date(t - KEEP_MS)))
      .catch(() => {});
  }

  /** Counts one hit on `key` against `limit` per minute. */
  async function hit(key: string, limit: number): Promise<RateDecision> {
    const t = now();
    const windowStart = t - (t % WINDOW_MS);
    const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - t) / 1000));
    cleanup(t);
    let b = buckets.get(key);
    if (!b || b.windowStart !== windowStart) {
      if (!b && buckets.size >= MAX_LOCAL_KEYS) buckets.clear();
      b = { windowStart, shared: 0, pending: 0, lastFlush: 0, flushing: null };
      buckets.set(key, b);
    }
    // Already over: refused without counting or touching the database.
    if (b.shared + b.pending >= limit) return { limit, remaining: 0, resetSeconds, allowed: false };
    b.pending++;
    const flushEvery = Math.max(1, Math.floor(limit / 20));
    const bucket = b;
    if (flushEvery === 1) {
      // Small limits are exact: every hit is added to the shared count before it is decided.
      await flush(key, bucket);
    } else if (!bucket.flushing && (bucket.pending >= flushEvery || t - bucket.lastFlush >= FLUSH_MS)) {
      bucket.flushing = flush(key, bucket).finally(() => {
        bucket.flushing = null;
      });
    }
    const used = bucket.shared + bucket.pending;
    return { limit, remaining: Math.max(0, limit - used), resetSeconds, allowed: used <= limit };
  }

  return { hit };
}

export type ApiRateLimiter = ReturnType<typeof createApiRateLimiter>;

/**
 * Sends the RateLimit-Limit, -Remaining and -Reset headers (and Retry-After when refused) of the
 * decision recorded for a request in the returned map, on every answer of `app`'s scope.
 */
export function sendRateLimitHeaders(app: FastifyInstance): WeakMap<FastifyRequest, RateDecision> {
  const decided = new WeakMap<FastifyRequest, RateDecision>();
  app.addHook("onSend", async (req, reply, payload) => {
    const d = decided.get(req);
    if (!d) return payload;
    reply.header("ratelimit-limit", String(d.limit));
    reply.header("ratelimit-remaining", String(d.remaining));
    reply.header("ratelimit-reset", String(d.resetSeconds));
    if (!d.allowed) reply.header("retry-after", String(d.resetSeconds));
    return payload;
  });
  return decided;
}

/**
 * Counts a call against a credential's limit, then (unless that refused it) its organization's;
 * answers the tighter decision, or undefined when both limits are off.
 */
export async function decideRate(
  limiter: ApiRateLimiter,
  credential: { key: string; limit: number },
  org: { key: string; limit: number } | null,
): Promise<RateDecision | undefined> {
  let tightest: RateDecision | undefined;
  if (credential.limit > 0) tightest = await limiter.hit(credential.key, credential.limit);
  if (org && org.limit > 0 && tightest?.allowed !== false) {
    const o = await limiter.hit(org.key, org.limit);
    // The refused limit if any, else the one with the fewest calls left.
    if (!tightest || !o.allowed || o.remaining < tightest.remaining) tightest = o;
  }
  return tightest;
}

export const rateLimitError = (d: RateDecision) =>
  new ApiError(
    "rate_limited",
    `Too many requests: at most ${d.limit} a minute. Try again in ${d.resetSeconds} s.`,
  );

/**
 * The credential a principal proved: its user for bearer tokens, the key itself for API keys (by
 * its id, which the validation already answered, rather than hashing the secret once more per
 * call; by a hash of it only if identity on another host did not send the id).
 */
function credentialKey(req: FastifyRequest, p: Principal): string {
  if (p.via === "api_key" && p.apiKeyId) return `key:${p.apiKeyId}`;
  if (p.via === "api_key") {
    const raw = req.headers["x-api-key"];
    const key = typeof raw === "string" ? raw.trim() : "";
    return `key:${createHash("sha256").update(key).digest("base64url").slice(0, 32)}`;
  }
  return `user:${p.userId}`;
}

/**
 * Rate limits per credential and per organization on the product API: wraps the router's
 * authenticator so every authenticated call is counted once it is known who makes it, answers 429
 * with Retry-After when a limit is reached, and sends the IETF draft's RateLimit-Limit,
 * RateLimit-Remaining and RateLimit-Reset headers (of the tighter limit) on every counted answer.
 */
export function installApiRateLimits(
  app: FastifyInstance,
  db: Db,
  limits: ApiRateLimits,
  authenticate: Authenticate,
): Authenticate {
  if (limits.perCredential <= 0 && limits.perOrg <= 0) return authenticate;
  const limiter = createApiRateLimiter(db);
  const decided = sendRateLimitHeaders(app);

  return async function rateLimited(req, opts) {
    const principal = await authenticate(req, opts);
    // The credential first: a call it refuses is not counted against the organization.
    const tightest = await decideRate(
      limiter,
      { key: credentialKey(req, principal), limit: limits.perCredential },
      principal.org ? { key: `org:${principal.org.org_id}`, limit: limits.perOrg } : null,
    );
    if (tightest) decided.set(req, tightest);
    if (tightest && !tightest.allowed) throw rateLimitError(tightest);
    return principal;
  };
}
