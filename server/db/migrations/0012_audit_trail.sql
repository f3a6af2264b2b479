-- The audit trail becomes readable: source, target label and before/after columns, existing
-- rows mapped to them, the legacy actor_via/details dropped, and the table append-only.
ALTER TABLE "audit_log" ALTER COLUMN "organization_uuid" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "target_label" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "before" jsonb;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "after" jsonb;--> statement-breakpoint
CREATE INDEX "audit_log_org_id_idx" ON "audit_log" USING btree ("organization_uuid","id");--> statement-breakpoint
CREATE INDEX "audit_log_org_target_idx" ON "audit_log" USING btree ("organization_uuid","target_type","target_id");--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at");--> statement-breakpoint
-- Existing rows (workspace, member and adjustment entries) in the new shape: source from how the
-- actor proved who they were, the closed vocabulary's names, the member as a member entry's
-- target, and details split into before/after.
UPDATE "audit_log" SET
  "source" = CASE
    WHEN "actor_via" = 'api_key' THEN 'api_key'
    WHEN "actor_via" = 'operator' AND coalesce("details"->>'source', '') IN ('cli', 'backend_api_key') THEN 'cli'
    ELSE 'console' END,
  "action" = CASE "action"
    WHEN 'workspace.create' THEN 'workspace.created'
    WHEN 'workspace.rename' THEN 'workspace.renamed'
    WHEN 'workspace.delete' THEN 'workspace.deleted'
    WHEN 'workspace.restore' THEN 'workspace.restored'
    WHEN 'workspace.current_set' THEN 'workspace.current_selected'
    WHEN 'workspace.member_add' THEN 'member.added'
    WHEN 'workspace.member_remove' THEN 'member.removed'
    WHEN 'usage.adjustment' THEN 'usage.adjustment_recorded'
    ELSE "action" END,
  "target_id" = CASE WHEN "target_type" = 'workspace_member' THEN coalesce("details"->>'user_id', "target_id") ELSE "target_id" END,
  "target_label" = CASE
    WHEN "target_type" = 'workspace_member' THEN "details"->>'email'
    WHEN "action" = 'workspace.rename' THEN "details"->>'to'
    WHEN "target_type" = 'workspace' THEN "details"->>'name'
    WHEN "target_type" = 'usage_event' THEN "details"->>'notes'
    ELSE NULL END,
  "before" = CASE "action"
    WHEN 'workspace.rename' THEN jsonb_build_object('name', "details"->'from')
    WHEN 'workspace.delete' THEN jsonb_build_object('name', "details"->'name', 'deleted_at', NULL)
    WHEN 'workspace.restore' THEN jsonb_build_object('name', "details"->'name', 'deleted_at', "details"->'deleted_at')
    WHEN 'workspace.member_remove' THEN jsonb_build_object('workspace_uuid', "target_id")
    ELSE NULL END,
  "after" = CASE "action"
    WHEN 'workspace.create' THEN jsonb_build_object('name', "details"->'name')
    WHEN 'workspace.rename' THEN jsonb_build_object('name', "details"->'to')
    WHEN 'workspace.restore' THEN jsonb_build_object('name', "details"->'name', 'deleted_at', NULL)
    WHEN 'workspace.member_add' THEN jsonb_build_object('workspace_uuid', "target_id", 'role', "details"->'role')
    WHEN 'workspace.current_set' THEN jsonb_build_object('user_id', "details"->'user_id')
    WHEN 'usage.adjustment' THEN "details" - 'source'
    ELSE NULL END;--> statement-breakpoint
ALTER TABLE "audit_log" ALTER COLUMN "source" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" DROP COLUMN "actor_via";--> statement-breakpoint
ALTER TABLE "audit_log" DROP COLUMN "details";--> statement-breakpoint
-- Append-only: no UPDATE, DELETE or TRUNCATE, except the retention purge's DELETE of rows older
-- than the cutoff it sets for its own transaction (never within the last day).
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  cutoff timestamptz;
BEGIN
  IF TG_OP = 'DELETE' THEN
    cutoff := nullif(current_setting('audit_log.purge_before', true), '')::timestamptz;
    IF cutoff IS NOT NULL AND cutoff <= now() - interval '1 day' AND OLD."at" < cutoff THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "audit_log_append_only" BEFORE UPDATE OR DELETE ON "audit_log"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();--> statement-breakpoint
-- The retention purge (AUDIT_RETENTION_DAYS): deletes entries older than that many days.
CREATE FUNCTION "audit_log_purge"(retention_days integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  cutoff timestamptz;
  purged bigint;
BEGIN
  IF retention_days IS NULL OR retention_days < 1 THEN
    RAISE EXCEPTION 'audit_log_purge: retention_days must be at least 1';
  END IF;
  cutoff := now() - make_interval(days => retention_days);
  PERFORM set_config('audit_log.purge_before', cutoff::text, true);
  DELETE FROM "audit_log" WHERE "at" < cutoff;
  GET DIAGNOSTICS purged = ROW_COUNT;
  PERFORM set_config('audit_log.purge_before', '', true);
  RETURN purged;
END;
$$;
