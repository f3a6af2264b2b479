CREATE TABLE "usage_daily_coarse" (
	"organization_uuid" text NOT NULL,
	"day" date NOT NULL,
	"workspace_uuid" uuid,
	"operation" text NOT NULL,
	"eval_type" text NOT NULL,
	"rule_metric" text NOT NULL,
	"modalities" text[] NOT NULL,
	"event_count" bigint NOT NULL,
	"quantity_sum" bigint NOT NULL,
	"cost_micros_sum" bigint NOT NULL,
	CONSTRAINT "usage_daily_coarse_dims_key" UNIQUE NULLS NOT DISTINCT("organization_uuid","day","workspace_uuid","operation","eval_type","rule_metric")
);
--> statement-breakpoint
CREATE TABLE "usage_versions" (
	"organization_uuid" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
-- The coarse rollup of the usage already counted: usage_daily summed over modality, jailbreak and
-- ground truth.
INSERT INTO "usage_daily_coarse" ("organization_uuid", "day", "workspace_uuid", "operation", "eval_type",
  "rule_metric", "modalities", "event_count", "quantity_sum", "cost_micros_sum")
SELECT "organization_uuid", "day", "workspace_uuid", "operation", "eval_type", "rule_metric",
  array_agg(DISTINCT "modality" ORDER BY "modality"), sum("event_count"), sum("quantity_sum"), sum("cost_micros_sum")
FROM "usage_daily"
GROUP BY "organization_uuid", "day", "workspace_uuid", "operation", "eval_type", "rule_metric";
--> statement-breakpoint
-- Billing cycles are now created when usage is written, never on a read: an organization that
-- has usage but was never read gets the cycle its first read would have made (its current
-- monthly cycle, from the 1st of the month of its earliest usage).
INSERT INTO "billing_cycles" ("organization_uuid", "start_date", "end_date")
SELECT d."organization_uuid", date_trunc('month', min(d."day"))::date, NULL
FROM "usage_daily" d
WHERE NOT EXISTS (SELECT 1 FROM "billing_cycles" c WHERE c."organization_uuid" = d."organization_uuid")
GROUP BY d."organization_uuid";
