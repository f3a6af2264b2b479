-- usage_events becomes a table partitioned by month of occurred_at (one partition per UTC calendar
-- month, created on write by usage_events_ensure_month below), so that a closed month can be
-- detached and archived. drizzle-kit cannot declare partitioning: the snapshot describes the
-- parent as an ordinary table with the same columns, primary key and indexes, which is what it is
-- to every query. The existing rows are moved into the new partitions, none is dropped.
--
-- Counters raised by triggers whenever an organization's price rules, workspaces or billing
-- cycles change ("" is the global price list): ingestion caches those and checks the counter
-- before each batch.
CREATE TABLE "metering_config_versions" (
	"scope" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
-- The idempotency keys. A partitioned table's unique constraints must include the partition key,
-- so (organization_uuid, event_id) can no longer be unique in usage_events itself.
CREATE TABLE "usage_event_keys" (
	"organization_uuid" text NOT NULL,
	"event_id" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "usage_event_keys_pkey" PRIMARY KEY("organization_uuid","event_id")
);
--> statement-breakpoint
ALTER TABLE "usage_events" RENAME TO "usage_events_unpartitioned";--> statement-breakpoint
ALTER TABLE "usage_events_unpartitioned" DROP CONSTRAINT "usage_events_org_event_id_key";--> statement-breakpoint
ALTER TABLE "usage_events_unpartitioned" DROP CONSTRAINT "usage_events_pkey";--> statement-breakpoint
DROP INDEX "usage_events_org_occurred_uuid_idx";--> statement-breakpoint
DROP INDEX "usage_events_search_trgm_idx";--> statement-breakpoint
DROP INDEX "usage_events_adjustments_idx";--> statement-breakpoint
DROP STATISTICS IF EXISTS "usage_events_adjustment_stats";--> statement-breakpoint
CREATE TABLE "usage_events" (
	"usage_event_uuid" uuid DEFAULT gen_random_uuid() NOT NULL,
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
	CONSTRAINT "usage_events_pkey" PRIMARY KEY("usage_event_uuid","occurred_at")
) PARTITION BY RANGE ("occurred_at");
--> statement-breakpoint
-- A partition's indexes are named after the parent's index and the month
-- (usage_events_search_trgm_idx_y2026m03), not PostgreSQL's generated names, so that a plan says
-- which index of which month it reads. Idempotent: an index already named so is left alone.
CREATE FUNCTION "usage_events_name_partition_indexes"(part regclass, suffix text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	ix record;
BEGIN
	FOR ix IN
		SELECT c.relname AS child, p.relname AS parent
		FROM pg_index x
		JOIN pg_class c ON c.oid = x.indexrelid
		JOIN pg_inherits i ON i.inhrelid = x.indexrelid
		JOIN pg_class p ON p.oid = i.inhparent
		WHERE x.indrelid = part AND c.relname <> p.relname || '_' || suffix
	LOOP
		EXECUTE format('ALTER INDEX %I RENAME TO %I', ix.child, ix.parent || '_' || suffix);
	END LOOP;
END $$;
--> statement-breakpoint
-- The partition of usage_events for the calendar month (UTC) of `at_day`, created if missing:
-- 'exists', 'created', or 'archived' when that month was detached by the metering CLI (its table
-- usage_events_archive_yYYYYmMM exists): then nothing is created, so that a month is never split
-- between an archive and a new partition. Safe when several API processes call it at once: they
-- take turns on an advisory lock, and the later ones find the partition. The new table is
-- attached (ATTACH PARTITION locks usage_events in SHARE UPDATE EXCLUSIVE mode, which concurrent
-- reads and inserts do not wait for; CREATE TABLE … PARTITION OF would lock out both).
CREATE FUNCTION "usage_events_ensure_month"(at_day date) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	month_start date := make_date(extract(year FROM at_day)::int, extract(month FROM at_day)::int, 1);
	suffix text := to_char(month_start::timestamp, '"y"YYYY"m"MM');
	part text := 'usage_events_' || suffix;
	attached bool;
BEGIN
	SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhparent = 'usage_events'::regclass AND inhrelid = to_regclass(part)) INTO attached;
	IF attached THEN RETURN 'exists'; END IF;
	PERFORM pg_advisory_xact_lock(hashtext('usage_events partitions'));
	SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhparent = 'usage_events'::regclass AND inhrelid = to_regclass(part)) INTO attached;
	IF attached THEN RETURN 'exists'; END IF;
	IF to_regclass('usage_events_archive_' || suffix) IS NOT NULL THEN RETURN 'archived'; END IF;
	EXECUTE format('CREATE TABLE %I (LIKE usage_events INCLUDING DEFAULTS)', part);
	EXECUTE format('ALTER TABLE usage_events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part,
		month_start::text || ' 00:00:00+00', (month_start + interval '1 month')::date::text || ' 00:00:00+00');
	PERFORM usage_events_name_partition_indexes(part::regclass, suffix);
	-- What migration 0009 gave the unpartitioned table: statistics on the adjustment predicate, so
	-- the planner knows how few rows match it and reads usage_events_adjustments_idx. The planner
	-- reads each partition's own statistics.
	EXECUTE format('CREATE STATISTICS %I ON ((cost_micros <> unit_price_micros * quantity)) FROM %I',
		part || '_adjustment_stats', part);
	RETURN 'created';
END $$;
--> statement-breakpoint
-- The months of the existing events, and the current one with its neighbours.
SELECT "usage_events_ensure_month"(m) FROM (
	SELECT DISTINCT date_trunc('month', "occurred_at" AT TIME ZONE 'UTC')::date AS m FROM "usage_events_unpartitioned"
	UNION SELECT (date_trunc('month', now() AT TIME ZONE 'UTC') + d * interval '1 month')::date FROM generate_series(-1, 1) AS d
) AS months;
--> statement-breakpoint
INSERT INTO "usage_events" ("usage_event_uuid", "organization_uuid", "event_id", "occurred_at", "workspace_uuid",
	"eval_uuid", "eval_run_uuid", "name", "operation", "eval_type", "modality", "is_jailbreak", "has_ground_truth",
	"created_by", "quantity", "rule_metric", "unit_price_micros", "cost_micros", "price_rule_uuid", "notes", "ingested_at")
SELECT "usage_event_uuid", "organization_uuid", "event_id", "occurred_at", "workspace_uuid",
	"eval_uuid", "eval_run_uuid", "name", "operation", "eval_type", "modality", "is_jailbreak", "has_ground_truth",
	"created_by", "quantity", "rule_metric", "unit_price_micros", "cost_micros", "price_rule_uuid", "notes", "ingested_at"
FROM "usage_events_unpartitioned";
--> statement-breakpoint
INSERT INTO "usage_event_keys" ("organization_uuid", "event_id", "occurred_at")
SELECT "organization_uuid", "event_id", "occurred_at" FROM "usage_events_unpartitioned";
--> statement-breakpoint
DROP TABLE "usage_events_unpartitioned";--> statement-breakpoint
-- The indexes of migrations 0005, 0008 and 0009, built after the rows are in (faster than row by
-- row); on the parent they cascade to every partition, present and future.
CREATE INDEX "usage_events_org_occurred_uuid_idx" ON "usage_events" USING btree ("organization_uuid","occurred_at" DESC NULLS FIRST,"usage_event_uuid" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "usage_events_search_trgm_idx" ON "usage_events" USING gin ((coalesce("name", '') || chr(10) || "operation" || chr(10) || "eval_type" || chr(10) || "modality" || chr(10) || coalesce("created_by", '') || chr(10) || coalesce("eval_uuid", '') || chr(10) || coalesce("eval_run_uuid", '') || chr(10) || coalesce("notes", '') || chr(10) || "rule_metric" || chr(10) || "quantity"::text || chr(10) || trim(trailing '.' from trim(trailing '0' from ("cost_micros"::numeric / 1000000)::text))) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "usage_events_adjustments_idx" ON "usage_events" USING btree ("organization_uuid","occurred_at") WHERE ("usage_events"."cost_micros" <> "usage_events"."unit_price_micros" * "usage_events"."quantity") is true;--> statement-breakpoint
SELECT "usage_events_name_partition_indexes"(i.inhrelid::regclass, substr(c.relname, length('usage_events_') + 1))
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'usage_events'::regclass;
--> statement-breakpoint
-- The configuration ingestion caches: any change raises the organization's counter (for a rule
-- of the global price list, the "" counter every organization reads). A workspace counts when it
-- is added, deleted or restored (a rename changes nothing ingestion checks).
CREATE FUNCTION "metering_config_bump"(scope text) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO metering_config_versions (scope, version) VALUES (coalesce(scope, ''), 1)
	ON CONFLICT (scope) DO UPDATE SET version = metering_config_versions.version + 1
$$;
--> statement-breakpoint
CREATE FUNCTION "metering_config_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN PERFORM metering_config_bump(OLD.organization_uuid); END IF;
	IF TG_OP <> 'DELETE' THEN PERFORM metering_config_bump(NEW.organization_uuid); END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "price_rules_config_version" AFTER INSERT OR UPDATE OR DELETE ON "price_rules"
	FOR EACH ROW EXECUTE FUNCTION metering_config_changed();--> statement-breakpoint
CREATE TRIGGER "billing_cycles_config_version" AFTER INSERT OR UPDATE OR DELETE ON "billing_cycles"
	FOR EACH ROW EXECUTE FUNCTION metering_config_changed();--> statement-breakpoint
CREATE TRIGGER "workspaces_config_version" AFTER INSERT OR DELETE OR UPDATE OF "organization_uuid", "deleted_at" ON "workspaces"
	FOR EACH ROW EXECUTE FUNCTION metering_config_changed();
