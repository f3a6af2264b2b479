CREATE TABLE "api_rate_buckets" (
	"key" text PRIMARY KEY NOT NULL,
	"count" bigint NOT NULL,
	"window_start" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ingest_keys" (
	"ingest_key_uuid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"organization_uuid" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "ingest_keys_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE INDEX "ingest_keys_org_idx" ON "ingest_keys" USING btree ("organization_uuid");