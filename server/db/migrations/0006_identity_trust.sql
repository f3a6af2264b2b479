CREATE TABLE "identity"."impersonation_write" (
	"id" text PRIMARY KEY NOT NULL,
	"operator_user_id" text NOT NULL,
	"target_user_id" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"status" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."sso_link" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"name_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "identity"."organization" ADD COLUMN "domain_verification_token" text;--> statement-breakpoint
ALTER TABLE "identity"."organization" ADD COLUMN "domain_verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "identity"."two_factor" ADD COLUMN "last_used_step" integer;--> statement-breakpoint
ALTER TABLE "identity"."user" ADD COLUMN "token_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "impersonator_user_id" text;--> statement-breakpoint
ALTER TABLE "identity"."sso_link" ADD CONSTRAINT "sso_link_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "identity"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."sso_link" ADD CONSTRAINT "sso_link_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "identity"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "impersonation_write_operator_idx" ON "identity"."impersonation_write" USING btree ("operator_user_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "sso_link_org_user_uq" ON "identity"."sso_link" USING btree ("org_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "organization_verified_domain_uq" ON "identity"."organization" USING btree ("domain") WHERE "identity"."organization"."domain_verified_at" is not null;