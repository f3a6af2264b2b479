import type pg from "pg";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from "rate-limiter-flexible";

/** At most `limit` hits per key within a window of `windowSeconds` (fixed, from the key's first hit). */
export type RateRule = { limit: number; windowSeconds: number };

/** One hit's outcome, as the RateLimit headers and Retry-After tell it. */
export type RateDecision = { limit: number; remaining: number; resetSeconds: number; allowed: boolean };

/**
 * Counters shared by every process on one database, kept by rate-limiter-flexible. Each hit is
 * one atomic increment in the store, so N parallel hits on a limit of L admit exactly L.
 */
export type RateLimits = {
  hit(key: string, rule: RateRule): Promise<RateDecision>;
  /** The hits counted under `key` in its current window (0 when none or the window is over). */
  peek(key: string, rule: RateRule): Promise<{ count: number; resetSeconds: number }>;
  reset(key: string, rule: RateRule): Promise<void>;
};

/** The table of migration 0029, in the columns RateLimiterPostgres writes (key, points, expire). */
const TABLE = "rate_limits";

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * PostgreSQL: RateLimiterPostgres on the product's pool, so every API and identity process counts
 * together; a store failure falls back to a per-process memory counter (its documented insurance)
 * rather than refusing calls.
 * PGlite: RateLimiterMemory. The embedded database has exactly one process that serves requests
 * (its data directory is locked to it), so a counter in that process's memory is the whole count,
 * atomic because JavaScript runs one hit at a time, and spares the database a write per call.
 */
export function createRateLimits(pool: pg.Pool | null): RateLimits {
  const limiters = new Map<string, RateLimiterAbstract>();
  // One limiter per rule, made once: the memory store lives in its limiter, and each Postgres
  // limiter would otherwise start its own cleanup timer.
  function limiter({ limit, windowSeconds }: RateRule): RateLimiterAbstract {
    const name = `${limit}/${windowSeconds}`;
    let made = limiters.get(name);
    if (made) return made;
    const opts = { keyPrefix: `r${limit}w${windowSeconds}`, points: limit, duration: windowSeconds };
    made = pool
      ? new RateLimiterPostgres({
          ...opts,
          storeClient: pool,
          storeType: "pool",
          tableName: TABLE,
          tableCreated: true,
          // Refused keys are refused in memory until their window ends: no database write per refusal.
          inMemoryBlockOnConsumed: limit + 1,
          insuranceLimiter: new RateLimiterMemory(opts),
        })
      : new RateLimiterMemory(opts);
    limiters.set(name, made);
    return made;
  }

  return {
    async hit(key, rule) {
      const outcome = await limiter(rule)
        .consume(key)
        .catch((e: unknown) => e);
      if (!(outcome instanceof RateLimiterRes)) throw outcome;
      const allowed = outcome.consumedPoints > 0 && outcome.consumedPoints <= rule.limit;
      return {
        limit: rule.limit,
        remaining: allowed ? outcome.remainingPoints : 0,
        resetSeconds: seconds(outcome.msBeforeNext),
        allowed,
      };
    },
    async peek(key, rule) {
      const res = await limiter(rule).get(key);
      return res
        ? { count: res.consumedPoints, resetSeconds: seconds(res.msBeforeNext) }
        : { count: 0, resetSeconds: 0 };
    },
    async reset(key, rule) {
      await limiter(rule).delete(key);
    },
  };
}
