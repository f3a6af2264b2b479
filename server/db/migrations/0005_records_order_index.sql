DROP INDEX "usage_events_org_occurred_idx";--> statement-breakpoint
DROP INDEX "usage_events_org_workspace_occurred_idx";--> statement-breakpoint
CREATE INDEX "usage_events_org_occurred_uuid_idx" ON "usage_events" USING btree ("organization_uuid","occurred_at" DESC NULLS FIRST,"usage_event_uuid" DESC NULLS FIRST);