CREATE TABLE "identity"."api_key" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" text NOT NULL,
	"org_id" text,
	"metadata" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "api_key_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "identity"."email_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"to" text NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"html" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "identity"."impersonation_audit" (
	"id" text PRIMARY KEY NOT NULL,
	"operator_user_id" text NOT NULL,
	"target_user_id" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity"."login_failure" (
	"email" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_failure_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity"."rate_limit_bucket" (
	"key" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"window_start" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."two_factor" (
	"id" text PRIMARY KEY NOT NULL,
	"secret" text NOT NULL,
	"backup_codes" text NOT NULL,
	"user_id" text NOT NULL,
	"verified" boolean DEFAULT true,
	"failed_verification_count" integer DEFAULT 0,
	"locked_until" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "identity"."organization" ADD COLUMN "role_structure" text DEFAULT 'single_role_in_hierarchy' NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."organization" ADD COLUMN "domain" text;--> statement-breakpoint
ALTER TABLE "identity"."organization" ADD COLUMN "autojoin_by_domain" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."organization" ADD COLUMN "restrict_to_domain" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."organization" ADD COLUMN "require_2fa_by" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "identity"."organization" ADD COLUMN "max_users" integer;--> statement-breakpoint
ALTER TABLE "identity"."session" ADD COLUMN "impersonated_by" text;--> statement-breakpoint
ALTER TABLE "identity"."user" ADD COLUMN "username" text;--> statement-breakpoint
ALTER TABLE "identity"."user" ADD COLUMN "properties" text;--> statement-breakpoint
ALTER TABLE "identity"."user" ADD COLUMN "two_factor_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."user" ADD COLUMN "role" text;--> statement-breakpoint
ALTER TABLE "identity"."user" ADD COLUMN "banned" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."user" ADD COLUMN "ban_reason" text;--> statement-breakpoint
ALTER TABLE "identity"."user" ADD COLUMN "ban_expires" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "identity"."api_key" ADD CONSTRAINT "api_key_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "identity"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."api_key" ADD CONSTRAINT "api_key_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "identity"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."two_factor" ADD CONSTRAINT "two_factor_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "identity"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_key_user_idx" ON "identity"."api_key" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "api_key_org_idx" ON "identity"."api_key" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "email_outbox_to_idx" ON "identity"."email_outbox" USING btree ("to");--> statement-breakpoint
CREATE INDEX "two_factor_user_idx" ON "identity"."two_factor" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "two_factor_secret_idx" ON "identity"."two_factor" USING btree ("secret");--> statement-breakpoint
ALTER TABLE "identity"."user" ADD CONSTRAINT "user_username_unique" UNIQUE("username");