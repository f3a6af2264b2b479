-- Each price rule row is one version of its lineage (the same organization and dimensions):
-- setting a price ends the open row and inserts a new one. The version is shown beside the rule's
-- uuid wherever an event's price is explained. Existing rows are numbered in the order they were
-- set (created_at, then valid_from); partition by treats nulls (wildcards, the global list) as equal.
ALTER TABLE "price_rules" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
UPDATE "price_rules" AS p SET "version" = v."version"
FROM (
	SELECT "price_rule_uuid", row_number() OVER (
		PARTITION BY "organization_uuid", "operation", "eval_type", "modality", "rule_metric"
		ORDER BY "created_at", "valid_from", "price_rule_uuid"
	)::integer AS "version"
	FROM "price_rules"
) AS v
WHERE p."price_rule_uuid" = v."price_rule_uuid" AND p."version" <> v."version";
