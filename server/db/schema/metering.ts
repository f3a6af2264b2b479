import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, dateText, micros, randomUuidKey, timestamptz, usageEventFacts } from "./columns";

/**
 * What one unit of usage costs. Every dimension column is a wildcard when null; organization_uuid
 * null is the global default price list. A rule applies to events with valid_from <= occurred_at <
 * valid_to (valid_to null: open-ended).
 */
export const priceRules = pgTable(
  "price_rules",
  {
    priceRuleUuid: randomUuidKey("price_rule_uuid"),
    organizationUuid: text("organization_uuid"),
    operation: text("operation"),
    evalType: text("eval_type"),
    modality: text("modality"),
    /** "eval" or "prompt". */
    ruleMetric: text("rule_metric"),
    unitPriceMicros: micros("unit_price_micros").notNull(),
    validFrom: timestamptz("valid_from").notNull().defaultNow(),
    validTo: timestamptz("valid_to"),
    createdAt: createdAt(),
    /**
     * A rule of the default price list shipped with the product (migration 0018): global, and
     * ranked below every rule an operator sets, so any price set through the API wins over it.
     */
    builtIn: boolean("built_in").notNull().default(false),
    /**
     * The rule's version within its lineage (the same organization and dimensions): 1 for the
     * first rule, one more for each later one setPriceRule sets (migration 0022 numbered the rows
     * before it by created_at). A row is never changed but for its valid_to, so an event's
     * price_rule_uuid names the version that priced it.
     */
    version: integer("version").notNull().default(1),
  },
  (t) => [index("price_rules_org_idx").on(t.organizationUuid, t.operation)],
);

type SearchedColumns = {
  name: AnyPgColumn;
  operation: AnyPgColumn;
  evalType: AnyPgColumn;
  modality: AnyPgColumn;
  createdBy: AnyPgColumn;
  evalUuid: AnyPgColumn;
  evalRunUuid: AnyPgColumn;
  notes: AnyPgColumn;
  ruleMetric: AnyPgColumn;
  quantity: AnyPgColumn;
  costMicros: AnyPgColumn;
};

/** The cost as the records search sees it: dollars without trailing zeros ("0.25", "-300"). */
export const searchedCost = (costMicros: AnyPgColumn) =>
  sql`trim(trailing '.' from trim(trailing '0' from (${costMicros}::numeric / 1000000)::text))`;

/**
 * Every column the records search reads from an event, joined by newlines into one text (immutable,
 * so it can be indexed). A search text found in one column is found in this text, so
 * `document ilike pattern` is a necessary condition the index answers; the per-column match is
 * checked on the rows it finds. The workspace name lives in another table and is matched apart.
 */
export const searchDocument = (t: SearchedColumns) =>
  sql`coalesce(${t.name}, '') || chr(10) || ${t.operation} || chr(10) || ${t.evalType} || chr(10) || ${t.modality} || chr(10) || coalesce(${t.createdBy}, '') || chr(10) || coalesce(${t.evalUuid}, '') || chr(10) || coalesce(${t.evalRunUuid}, '') || chr(10) || coalesce(${t.notes}, '') || chr(10) || ${t.ruleMetric} || chr(10) || ${t.quantity}::text || chr(10) || ${searchedCost(t.costMicros)}`;

/**
 * One priced usage record, stored once per (organization, client event id): usage_event_keys holds
 * that idempotency key. Partitioned by month of occurred_at (migration 0011; drizzle's schema cannot
 * declare it): one table per UTC calendar month, created on write by usage_events_ensure_month, so
 * a closed month can be detached and archived without touching the others. A partitioned table's
 * primary key must include the partition key, hence (usage_event_uuid, occurred_at).
 */
export const usageEvents = pgTable(
  "usage_events",
  {
    usageEventUuid: uuid("usage_event_uuid").notNull().default(sql`gen_random_uuid()`),
    ...usageEventFacts(),
    unitPriceMicros: micros("unit_price_micros").notNull(),
    /** Negative for credits and price adjustments. */
    costMicros: micros("cost_micros").notNull(),
    priceRuleUuid: uuid("price_rule_uuid"),
    notes: text("notes"),
    ingestedAt: timestamptz("ingested_at").notNull().defaultNow(),
    /**
     * Late usage (migration 0023): an event whose day lay in a closed billing cycle is billed in
     * the open one, so occurred_at is when it was billed and this is when the usage happened (the
     * time it is priced at). Null for every other event.
     */
    lateOccurredAt: timestamptz("late_occurred_at"),
    /** The closed cycle a late event, or a price correction line, belongs to (its period). */
    latePeriodStart: dateText("late_period_start"),
    latePeriodEnd: dateText("late_period_end"),
    /**
     * A price adjustment: the event arrived with an explicit cost (a credit or charge), or is a
     * price correction line. Written when the event is stored (migration 0028 filled it for older
     * rows); re-rating never moves such an event and every reader that tells usage from
     * adjustments reads this, never the arithmetic of cost against quantity × unit price.
     */
    adjustment: boolean("adjustment").notNull().default(false),
  },
  (t) => [
    primaryKey({ name: "usage_events_pkey", columns: [t.usageEventUuid, t.occurredAt] }),
    // The records page's default order (newest first, ties by uuid) and the CSV export's keyset:
    // the first page is a short index scan instead of a sort of the whole cycle. NULLS FIRST is
    // what ORDER BY … DESC means; with drizzle's default (NULLS LAST) the planner would not use
    // the index for that order, although both columns are NOT NULL. No (organization, workspace,
    // time) index: the workspace filter keeps rows without a workspace (`is null or in (…)`) and
    // the planner preferred this index or a scan of the cycle for every records query.
    index("usage_events_org_occurred_uuid_idx").on(
      t.organizationUuid,
      t.occurredAt.desc().nullsFirst(),
      t.usageEventUuid.desc().nullsFirst(),
    ),
    // Records search: a trigram index over every searched column of the event in one text (see
    // searchDocument), so `document ilike '%text%'` is a bitmap index scan instead of a scan of the
    // cycle. Needs the pg_trgm extension (created by migration 0008, loaded into PGlite).
    index("usage_events_search_trgm_idx").using("gin", sql`(${searchDocument(t)}) gin_trgm_ops`),
    // Price adjustments are a handful per cycle: the Usage Summary and the chart read them on every
    // call, from this small partial index instead of a scan of the whole cycle. The predicate must
    // stay the one usage-aggregates.ts queries.
    index("usage_events_adjustment_idx").on(t.organizationUuid, t.occurredAt).where(sql`${t.adjustment}`),
    // One eval run's events (its page, and the records filtered by run): an index range instead of
    // a scan of the cycle. Partial: most events belong to no run and need no entry.
    index("usage_events_org_run_idx")
      .on(t.organizationUuid, t.evalRunUuid, t.occurredAt)
      .where(sql`${t.evalRunUuid} is not null`),
  ],
);

/**
 * The idempotency key of every stored usage event, written in the same statement as the event. It
 * lives apart from usage_events because a partitioned table can only enforce keys that include the
 * partition key: there, the same event id at two different months would be two rows. Kept when a
 * month of events is archived, so a resent old event is still a duplicate.
 */
export const usageEventKeys = pgTable(
  "usage_event_keys",
  {
    organizationUuid: text("organization_uuid").notNull(),
    eventId: text("event_id").notNull(),
    /** The stored event's occurred_at: which month's partition holds it. */
    occurredAt: timestamptz("occurred_at").notNull(),
  },
  (t) => [primaryKey({ name: "usage_event_keys_pkey", columns: [t.organizationUuid, t.eventId] })],
);

/**
 * Usage events accepted while no price rule matched them, held here until one does (awaiting
 * pricing): their idempotency key is already in usage_event_keys, so a resend is a duplicate. They
 * are in no rollup and no bill until priced: prices.ts's awaiting-pricing move deletes them from here
 * and stores them in usage_events and the rollups in one transaction, under a per-organization lock,
 * so each is priced exactly once. `backfill` records that an operator sent it into a closed cycle;
 * `held_reason` says why a rule already covers it but it could not be priced yet (a closed cycle,
 * an archived month, the cost limit).
 */
export const usageEventsAwaiting = pgTable(
  "usage_events_awaiting",
  {
    ...usageEventFacts(),
    notes: text("notes"),
    backfill: boolean("backfill").notNull().default(false),
    heldReason: text("held_reason"),
    receivedAt: timestamptz("received_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "usage_events_awaiting_pkey", columns: [t.organizationUuid, t.eventId] }),
    index("usage_events_awaiting_org_occurred_idx").on(t.organizationUuid, t.occurredAt, t.eventId),
  ],
);

/**
 * A counter per organization ("" for the global price list), raised by triggers (migration 0011)
 * in every transaction that changes its price rules, workspaces (added, deleted, restored) or
 * billing cycles. Ingestion caches those per organization and compares this counter before each
 * batch, so no API process prices an event with a rule, or accepts a workspace, that a committed
 * change has since replaced.
 */
export const meteringConfigVersions = pgTable("metering_config_versions", {
  scope: text("scope").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull(),
});

/**
 * Provider credentials for usage ingestion: the platform's eval services send usage with one of
 * these in `x-api-key`. Created by the operator CLI, shown once, only a SHA-256 of the token kept.
 * organization_uuid null: the key may write usage for every organization.
 */
export const ingestKeys = pgTable(
  "ingest_keys",
  {
    ingestKeyUuid: randomUuidKey("ingest_key_uuid"),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    organizationUuid: text("organization_uuid"),
    createdAt: createdAt(),
    revokedAt: timestamptz("revoked_at"),
    lastUsedAt: timestamptz("last_used_at"),
  },
  (t) => [index("ingest_keys_org_idx").on(t.organizationUuid)],
);
