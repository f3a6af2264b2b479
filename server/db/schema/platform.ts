import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, randomUuidKey, timestamptz } from "./columns";

/**
 * rate-limiter-flexible's RateLimiterPostgres store (platform/rate-limits.ts): its columns, in its
 * order (it inserts without naming them). Keys are `text`: identity's keys hold an email address.
 */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull().default(0),
  /** Milliseconds since the epoch when the key's window ends. */
  expire: bigint("expire", { mode: "number" }),
});

/** Background work of every kind (platform/jobs.ts): one row per job, its state and progress. */
export const jobs = pgTable(
  "jobs",
  {
    id: randomUuidKey("id"),
    kind: text("kind").notNull(),
    /** The tenant the work is for (the runner takes organizations in turn); null: the installation's. */
    organizationUuid: text("organization_uuid"),
    payload: jsonb("payload").notNull().default({}),
    state: text("state", { enum: ["queued", "running", "done", "failed"] })
      .notNull()
      .default("queued"),
    done: integer("done").notNull().default(0),
    total: integer("total"),
    error: text("error"),
    /** Claims so far; a claim's number fences the writes of a runner that lost its lease. */
    attempts: integer("attempts").notNull().default(0),
    /** At most one queued or running job per key (a recurring task's next run). */
    dedupeKey: text("dedupe_key"),
    runAfter: timestamptz("run_after").notNull().defaultNow(),
    /** The last claim: when the organization was last served, for the round-robin. */
    claimedAt: timestamptz("claimed_at"),
    /** A running job whose lease ended lost its runner (a crash): another claim resumes it. */
    lockedUntil: timestamptz("locked_until"),
    createdAt: createdAt(),
    startedAt: timestamptz("started_at"),
    finishedAt: timestamptz("finished_at"),
  },
  (t) => [
    check("jobs_state_check", sql`${t.state} in ('queued', 'running', 'done', 'failed')`),
    index("jobs_claimable_idx").on(t.state, t.runAfter),
    index("jobs_org_claimed_idx").on(t.organizationUuid, t.claimedAt),
    uniqueIndex("jobs_pending_dedupe_idx").on(t.dedupeKey).where(sql`${t.state} in ('queued', 'running')`),
  ],
);
