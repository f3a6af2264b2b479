ALTER TABLE "eval_runs" ADD COLUMN "reserved_micros" bigint;--> statement-breakpoint
ALTER TABLE "eval_runs" ADD COLUMN "finished_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "eval_runs_org_reserved_idx" ON "eval_runs" USING btree ("organization_uuid") WHERE "eval_runs"."reserved_micros" is not null and "eval_runs"."finished_at" is null;