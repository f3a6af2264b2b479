CREATE TABLE "budget_alerts" (
	"budget_alert_uuid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"budget_uuid" uuid NOT NULL,
	"organization_uuid" text NOT NULL,
	"cycle_start" date NOT NULL,
	"threshold" integer NOT NULL,
	"triggered_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"spent_micros" bigint NOT NULL,
	"triggered_notified_at" timestamp with time zone,
	"resolved_notified_at" timestamp with time zone,
	CONSTRAINT "budget_alerts_budget_cycle_threshold_key" UNIQUE("budget_uuid","cycle_start","threshold")
);
--> statement-breakpoint
CREATE TABLE "budgets" (
	"budget_uuid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_uuid" text NOT NULL,
	"workspace_uuid" uuid,
	"amount_micros" bigint NOT NULL,
	"thresholds" integer[] NOT NULL,
	"hard_limit" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budgets_amount_positive" CHECK ("budgets"."amount_micros" > 0)
);
--> statement-breakpoint
ALTER TABLE "budget_alerts" ADD CONSTRAINT "budget_alerts_budget_uuid_budgets_budget_uuid_fk" FOREIGN KEY ("budget_uuid") REFERENCES "public"."budgets"("budget_uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "budgets" ADD CONSTRAINT "budgets_workspace_uuid_workspaces_workspace_uuid_fk" FOREIGN KEY ("workspace_uuid") REFERENCES "public"."workspaces"("workspace_uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "budget_alerts_open_idx" ON "budget_alerts" USING btree ("organization_uuid") WHERE "budget_alerts"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "budget_alerts_unsent_idx" ON "budget_alerts" USING btree ("triggered_at") WHERE "budget_alerts"."triggered_notified_at" is null or ("budget_alerts"."resolved_at" is not null and "budget_alerts"."resolved_notified_at" is null);--> statement-breakpoint
CREATE INDEX "budgets_org_idx" ON "budgets" USING btree ("organization_uuid");--> statement-breakpoint
CREATE UNIQUE INDEX "budgets_organization_scope_key" ON "budgets" USING btree ("organization_uuid") WHERE "budgets"."workspace_uuid" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "budgets_workspace_scope_key" ON "budgets" USING btree ("workspace_uuid") WHERE "budgets"."workspace_uuid" is not null;--> statement-breakpoint
-- Ingestion caches an organization's budgets per API process next to its price rules and cycles,
-- and checks the same counter before each batch (server/metering/budgets-cache.ts).
CREATE TRIGGER "budgets_config_version" AFTER INSERT OR UPDATE OR DELETE ON "budgets"
	FOR EACH ROW EXECUTE FUNCTION metering_config_changed();
