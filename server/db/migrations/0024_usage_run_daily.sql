CREATE TABLE "usage_run_daily" (
	"organization_uuid" text NOT NULL,
	"day" date NOT NULL,
	"eval_run_uuid" text NOT NULL,
	"first_at" timestamp with time zone NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	"event_count" bigint NOT NULL,
	"quantity_sum" bigint NOT NULL,
	"cost_micros_sum" bigint NOT NULL,
	"name" text,
	"eval_uuid" text,
	"eval_type" text NOT NULL,
	"workspace_uuid" text,
	CONSTRAINT "usage_run_daily_pkey" PRIMARY KEY("organization_uuid","day","eval_run_uuid")
);
--> statement-breakpoint
-- The per-run rollup of the usage already stored (docs/eval-runs.md): the events that name a run,
-- summed per organization, UTC day and run, as every writer of usage keeps it from now on. Archived
-- months (detached partitions) are not read, as the Eval Runs list never read them.
INSERT INTO "usage_run_daily" ("organization_uuid", "day", "eval_run_uuid", "first_at", "last_at", "event_count",
  "quantity_sum", "cost_micros_sum", "name", "eval_uuid", "eval_type", "workspace_uuid")
SELECT "organization_uuid", ("occurred_at" AT TIME ZONE 'UTC')::date, "eval_run_uuid", min("occurred_at"),
  max("occurred_at"), count(*), sum("quantity"), sum("cost_micros"), min("name"), min("eval_uuid"), min("eval_type"),
  min("workspace_uuid"::text)
FROM "usage_events"
WHERE "eval_run_uuid" IS NOT NULL
GROUP BY 1, 2, 3;
