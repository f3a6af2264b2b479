CREATE TABLE "billing_cycles" (
	"billing_cycle_uuid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_uuid" text NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"payment_uuid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_uuid" text NOT NULL,
	"billing_cycle_uuid" uuid NOT NULL,
	"amount_micros" bigint NOT NULL,
	"paid_at" timestamp with time zone DEFAULT now() NOT NULL,
	"note" text
);
--> statement-breakpoint
CREATE TABLE "price_rules" (
	"price_rule_uuid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_uuid" text,
	"operation" text,
	"eval_type" text,
	"modality" text,
	"rule_metric" text,
	"unit_price_micros" bigint NOT NULL,
	"valid_from" timestamp with time zone DEFAULT now() NOT NULL,
	"valid_to" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"organization_uuid" text NOT NULL,
	"day" date NOT NULL,
	"workspace_uuid" uuid,
	"operation" text NOT NULL,
	"eval_type" text NOT NULL,
	"modality" text NOT NULL,
	"is_jailbreak" boolean NOT NULL,
	"has_ground_truth" boolean NOT NULL,
	"rule_metric" text NOT NULL,
	"event_count" bigint NOT NULL,
	"quantity_sum" bigint NOT NULL,
	"cost_micros_sum" bigint NOT NULL,
	CONSTRAINT "usage_daily_dims_key" UNIQUE NULLS NOT DISTINCT("organization_uuid","day","workspace_uuid","operation","eval_type","modality","is_jailbreak","has_ground_truth","rule_metric")
);
--> statement-breakpoint
CREATE TABLE "usage_events" (
	"usage_event_uuid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
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
	"unit_price_micros" bigint NOT NULL,
	"cost_micros" bigint NOT NULL,
	"price_rule_uuid" uuid,
	"notes" text,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_events_org_event_id_key" UNIQUE("organization_uuid","event_id")
);
--> statement-breakpoint
CREATE TABLE "workspace_group_members" (
	"workspace_group_uuid" uuid NOT NULL,
	"workspace_uuid" uuid NOT NULL,
	CONSTRAINT "workspace_group_members_workspace_group_uuid_workspace_uuid_pk" PRIMARY KEY("workspace_group_uuid","workspace_uuid")
);
--> statement-breakpoint
CREATE TABLE "workspace_groups" (
	"workspace_group_uuid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_uuid" text NOT NULL,
	"group_name" text NOT NULL,
	"prepaid_micros" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspace_groups_org_name_key" UNIQUE("organization_uuid","group_name")
);
--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_billing_cycle_uuid_billing_cycles_billing_cycle_uuid_fk" FOREIGN KEY ("billing_cycle_uuid") REFERENCES "public"."billing_cycles"("billing_cycle_uuid") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_group_members" ADD CONSTRAINT "workspace_group_members_workspace_group_uuid_workspace_groups_workspace_group_uuid_fk" FOREIGN KEY ("workspace_group_uuid") REFERENCES "public"."workspace_groups"("workspace_group_uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_group_members" ADD CONSTRAINT "workspace_group_members_workspace_uuid_workspaces_workspace_uuid_fk" FOREIGN KEY ("workspace_uuid") REFERENCES "public"."workspaces"("workspace_uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "billing_cycles_org_start_idx" ON "billing_cycles" USING btree ("organization_uuid","start_date" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payments_org_cycle_idx" ON "payments" USING btree ("organization_uuid","billing_cycle_uuid");--> statement-breakpoint
CREATE INDEX "price_rules_org_idx" ON "price_rules" USING btree ("organization_uuid","operation");--> statement-breakpoint
CREATE INDEX "usage_daily_org_day_idx" ON "usage_daily" USING btree ("organization_uuid","day" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "usage_events_org_occurred_idx" ON "usage_events" USING btree ("organization_uuid","occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "usage_events_org_workspace_occurred_idx" ON "usage_events" USING btree ("organization_uuid","workspace_uuid","occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "workspace_group_members_workspace_idx" ON "workspace_group_members" USING btree ("workspace_uuid");