-- Eval runs (GET/POST /v1/eval-runs): the runs started through the API, and an index over the
-- usage events that name a run, so one run's events are an index range of each month.
CREATE TABLE "eval_runs" (
	"eval_run_uuid" text PRIMARY KEY DEFAULT gen_random_uuid()::text NOT NULL,
	"organization_uuid" text NOT NULL,
	"workspace_uuid" uuid NOT NULL,
	"name" text,
	"eval_type" text,
	"started_by_user_id" text,
	"started_by_email" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "eval_runs_org_started_idx" ON "eval_runs" USING btree ("organization_uuid","started_at");--> statement-breakpoint
-- On the partitioned parent: cascades to every month's partition, present and future; the
-- partitions' copies then take the month-suffixed names the other usage_events indexes have.
CREATE INDEX "usage_events_org_run_idx" ON "usage_events" USING btree ("organization_uuid","eval_run_uuid","occurred_at") WHERE "usage_events"."eval_run_uuid" is not null;--> statement-breakpoint
SELECT "usage_events_name_partition_indexes"(i.inhrelid::regclass, substr(c.relname, length('usage_events_') + 1))
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'usage_events'::regclass;
