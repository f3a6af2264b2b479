-- What an event is (a price adjustment, or usage priced by a rule) becomes a stored fact, written
-- when the event is stored, instead of being inferred from cost ≠ quantity × unit price (which an
-- explicit cost equal to that product defeats). Existing rows are filled from what is known of them
-- (docs/pricing.md, "Adjustments are a stored fact"): the arithmetic, a missing price rule, or the
-- audit entry an operator's adjustment left behind.
DROP INDEX IF EXISTS "usage_events_adjustments_idx";--> statement-breakpoint
DROP STATISTICS IF EXISTS "usage_events_adjustment_stats";--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "adjustment" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "usage_events" e SET "adjustment" = true
 WHERE (e.cost_micros <> e.unit_price_micros * e.quantity) IS TRUE
    OR e.price_rule_uuid IS NULL
    OR (e.notes IS NOT NULL AND EXISTS (
          SELECT 1 FROM audit_log a
           WHERE a.organization_uuid = e.organization_uuid AND a.action = 'usage.adjustment_recorded'
             AND a.target_type = 'usage_event' AND a.target_id = e.event_id));--> statement-breakpoint
-- Archived months (detached partitions) get the column and the same fill, so that they can be
-- attached again; a month archived and dropped before this migration gets both when restored.
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind = 'r'
              AND c.relname ~ '^usage_events_archive_y[0-9]{4}m[0-9]{2}$'
  LOOP
    EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS adjustment boolean DEFAULT false NOT NULL', t);
    EXECUTE format($f$UPDATE %I e SET adjustment = true
      WHERE (e.cost_micros <> e.unit_price_micros * e.quantity) IS TRUE OR e.price_rule_uuid IS NULL
         OR (e.notes IS NOT NULL AND EXISTS (SELECT 1 FROM audit_log a
              WHERE a.organization_uuid = e.organization_uuid AND a.action = 'usage.adjustment_recorded'
                AND a.target_type = 'usage_event' AND a.target_id = e.event_id))$f$, t);
  END LOOP;
END $$;--> statement-breakpoint
CREATE INDEX "usage_events_adjustment_idx" ON "usage_events" USING btree ("organization_uuid","occurred_at") WHERE "usage_events"."adjustment";
