CREATE TABLE "usage_daily_mid" (
	"organization_uuid" text NOT NULL,
	"day" date NOT NULL,
	"workspace_uuid" uuid,
	"operation" text NOT NULL,
	"eval_type" text NOT NULL,
	"is_jailbreak" boolean NOT NULL,
	"has_ground_truth" boolean NOT NULL,
	"rule_metric" text NOT NULL,
	"modalities" text[] NOT NULL,
	"event_count" bigint NOT NULL,
	"quantity_sum" bigint NOT NULL,
	"cost_micros_sum" bigint NOT NULL,
	CONSTRAINT "usage_daily_mid_dims_key" UNIQUE NULLS NOT DISTINCT("organization_uuid","day","workspace_uuid","operation","eval_type","is_jailbreak","has_ground_truth","rule_metric")
);
--> statement-breakpoint
-- The middle rollup of the usage already counted: usage_daily summed over modality.
INSERT INTO "usage_daily_mid" ("organization_uuid", "day", "workspace_uuid", "operation", "eval_type",
  "is_jailbreak", "has_ground_truth", "rule_metric", "modalities", "event_count", "quantity_sum", "cost_micros_sum")
SELECT "organization_uuid", "day", "workspace_uuid", "operation", "eval_type", "is_jailbreak", "has_ground_truth",
  "rule_metric", array_agg(DISTINCT "modality" ORDER BY "modality"), sum("event_count"), sum("quantity_sum"),
  sum("cost_micros_sum")
FROM "usage_daily"
GROUP BY "organization_uuid", "day", "workspace_uuid", "operation", "eval_type", "is_jailbreak", "has_ground_truth",
  "rule_metric";
