import { sql } from "drizzle-orm";
import { rateLimitBucket } from "../db/schema";
import type { Db } from "../platform/database";

export type RateLimitResult = { allowed: boolean; remaining: number; retryAfterSeconds: number };

/**
 * Fixed-window rate limits kept in the database, so every instance counts together. One
 * statement per hit: the upsert resets an expired window and increments atomically.
 */
export function createRateLimiter(db: Db) {
  return {
    async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitResult> {
      const now = new Date();
      const cutoff = new Date(now.getTime() - windowSeconds * 1000);
      const [row] = await db
        .insert(rateLimitBucket)
        .values({ key, count: 1, windowStart: now })
        .onConflictDoUpdate({
          target: rateLimitBucket.key,
          set: {
            count: sql`case when ${rateLimitBucket.windowStart} < ${cutoff.toISOString()}::timestamptz then 1 else ${rateLimitBucket.count} + 1 end`,
            windowStart: sql`case when ${rateLimitBucket.windowStart} < ${cutoff.toISOString()}::timestamptz then ${now.toISOString()}::timestamptz else ${rateLimitBucket.windowStart} end`,
          },
        })
        .returning();
      const count = row?.count ?? 1;
      const start = row?.windowStart ?? now;
      const retryAfterSeconds = Math.max(
        1,
        Math.ceil((start.getTime() + windowSeconds * 1000 - now.getTime()) / 1000),
      );
      return { allowed: count <= limit, remaining: Math.max(0, limit - count), retryAfterSeconds };
    },
    /** Hits counted under `key` in its current window (0 when none or the window is over). */
    async peek(key: string, windowSeconds: number): Promise<{ count: number; retryAfterSeconds: number }> {
      const [row] = await db.select().from(rateLimitBucket).where(sql`${rateLimitBucket.key} = ${key}`);
      const now = Date.now();
      const end = row ? row.windowStart.getTime() + windowSeconds * 1000 : 0;
      if (!row || end <= now) return { count: 0, retryAfterSeconds: 0 };
      return { count: row.count, retryAfterSeconds: Math.max(1, Math.ceil((end - now) / 1000)) };
    },
    async reset(key: string) {
      await db.delete(rateLimitBucket).where(sql`${rateLimitBucket.key} = ${key}`);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
