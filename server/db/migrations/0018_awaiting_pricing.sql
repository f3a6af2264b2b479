CREATE TABLE "usage_events_awaiting" (
	"organization_uuid" text NOT NULL,
	"event_id" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"workspace_uuid" uuid,
	"eval_uuid" text,
	"eval_run_uuid" text,
	"name" text,
	"operation" text NOT NULL,
	"eval_type" text NOT NULL,
	"modality" text DEFAULT '' NOT NULL,
	"is_jailbreak" boolean DEFAULT false NOT NULL,
	"has_ground_truth" boolean DEFAULT false NOT NULL,
	"created_by" text,
	"quantity" bigint DEFAULT 1 NOT NULL,
	"rule_metric" text DEFAULT 'eval' NOT NULL,
	"notes" text,
	"backfill" boolean DEFAULT false NOT NULL,
	"held_reason" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_events_awaiting_pkey" PRIMARY KEY("organization_uuid","event_id")
);
--> statement-breakpoint
ALTER TABLE "price_rules" ADD COLUMN "built_in" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "usage_events_awaiting_org_occurred_idx" ON "usage_events_awaiting" USING btree ("organization_uuid","occurred_at","event_id");--> statement-breakpoint
-- The default price list (docs/pricing.md): global rules per eval type and rule metric, in force
-- from 2000-01-01 (the earliest usage date), so a new organization's usage is priced from its first
-- event. built_in ranks them below any price an operator sets; operators change them through the
-- price API (a rule for the same dimensions ends the default one).
INSERT INTO "price_rules" ("organization_uuid", "operation", "eval_type", "modality", "rule_metric", "unit_price_micros", "valid_from", "built_in") VALUES
	(NULL, NULL, 'safety', NULL, 'eval', 20000, '2000-01-01T00:00:00Z', true),
	(NULL, NULL, 'safety', NULL, 'prompt', 1000, '2000-01-01T00:00:00Z', true),
	(NULL, NULL, 'image_safety', NULL, 'eval', 40000, '2000-01-01T00:00:00Z', true),
	(NULL, NULL, 'image_safety', NULL, 'prompt', 2000, '2000-01-01T00:00:00Z', true),
	(NULL, NULL, 'jailbreak', NULL, 'eval', 80000, '2000-01-01T00:00:00Z', true),
	(NULL, NULL, 'jailbreak', NULL, 'prompt', 2000, '2000-01-01T00:00:00Z', true),
	(NULL, NULL, 'accuracy', NULL, 'eval', 20000, '2000-01-01T00:00:00Z', true),
	(NULL, NULL, 'accuracy', NULL, 'prompt', 1000, '2000-01-01T00:00:00Z', true),
	(NULL, NULL, 'hallucination', NULL, 'eval', 20000, '2000-01-01T00:00:00Z', true),
	(NULL, NULL, 'hallucination', NULL, 'prompt', 1000, '2000-01-01T00:00:00Z', true);
