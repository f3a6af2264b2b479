-- Audit entries get a random public id: the API, the console and the CSV show it instead of the
-- bigserial id, which is shared by every organization, so its gaps told one tenant how many entries
-- the others wrote. Existing rows get theirs while the column is added (a table rewrite fires no
-- row trigger, so the append-only trigger is not involved); the id stays, internal, for ordering.
ALTER TABLE "audit_log" ADD COLUMN "audit_entry_uuid" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_audit_entry_uuid_unique" UNIQUE("audit_entry_uuid");