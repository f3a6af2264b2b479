CREATE TABLE "usage_watermarks" (
	"organization_uuid" text NOT NULL,
	"source" text NOT NULL,
	"complete_through" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"late_events" bigint DEFAULT 0 NOT NULL,
	"last_late_at" timestamp with time zone,
	CONSTRAINT "usage_watermarks_pkey" PRIMARY KEY("organization_uuid","source")
);
