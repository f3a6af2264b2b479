-- Late usage and closed-cycle price corrections (docs/pricing.md). A usage event whose day lies in
-- a closed billing cycle is billed in the open cycle: its row's occurred_at is the time it was
-- billed (so the rollups, totals and bill of the open cycle count it, and the closed cycle never
-- changes), late_occurred_at the time the usage really happened (the time it is priced at) and
-- late_period_start/late_period_end the closed cycle it belongs to. A price correction line for a
-- closed cycle carries that cycle's period too (late_occurred_at null). Null for every other event.
-- Nullable columns without a default: adding them rewrites no partition.
ALTER TABLE "usage_events" ADD COLUMN "late_occurred_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "late_period_start" date;--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "late_period_end" date;
