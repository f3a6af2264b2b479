CREATE TABLE "identity"."saml_connection" (
	"org_id" text PRIMARY KEY NOT NULL,
	"idp_entity_id" text NOT NULL,
	"idp_sso_url" text NOT NULL,
	"idp_certificate" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"organization_uuid" text NOT NULL,
	"actor_user_id" text,
	"actor_email" text,
	"actor_via" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "current_workspace" (
	"user_id" text NOT NULL,
	"organization_uuid" text NOT NULL,
	"workspace_uuid" uuid NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "current_workspace_user_id_organization_uuid_pk" PRIMARY KEY("user_id","organization_uuid")
);
--> statement-breakpoint
ALTER TABLE "identity"."saml_connection" ADD CONSTRAINT "saml_connection_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "identity"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "current_workspace" ADD CONSTRAINT "current_workspace_workspace_uuid_workspaces_workspace_uuid_fk" FOREIGN KEY ("workspace_uuid") REFERENCES "public"."workspaces"("workspace_uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_org_at_idx" ON "audit_log" USING btree ("organization_uuid","at");