CREATE INDEX "usage_events_adjustments_idx" ON "usage_events" USING btree ("organization_uuid","occurred_at") WHERE ("usage_events"."cost_micros" <> "usage_events"."unit_price_micros" * "usage_events"."quantity") is true;--> statement-breakpoint
-- Statistics on the adjustment predicate, so the planner knows how few rows match it and uses the
-- partial index above (drizzle's schema cannot declare statistics; the snapshot does not track them).
CREATE STATISTICS IF NOT EXISTS "usage_events_adjustment_stats" ON (("cost_micros" <> "unit_price_micros" * "quantity")) FROM "usage_events";
