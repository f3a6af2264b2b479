ALTER TABLE "eval_runs" ADD COLUMN "outcomes_passed" bigint;--> statement-breakpoint
ALTER TABLE "eval_runs" ADD COLUMN "outcomes_failed" bigint;--> statement-breakpoint
ALTER TABLE "eval_runs" ADD COLUMN "outcomes_errored" bigint;--> statement-breakpoint
ALTER TABLE "eval_runs" ADD COLUMN "outcomes_reported_at" timestamp with time zone;--> statement-breakpoint
-- Hand-written: the documented range of a reported count, held by the database too.
ALTER TABLE "eval_runs" ADD CONSTRAINT "eval_runs_outcomes_range" CHECK (
  ("outcomes_passed" IS NULL OR "outcomes_passed" BETWEEN 0 AND 1000000000)
  AND ("outcomes_failed" IS NULL OR "outcomes_failed" BETWEEN 0 AND 1000000000)
  AND ("outcomes_errored" IS NULL OR "outcomes_errored" BETWEEN 0 AND 1000000000)
);
