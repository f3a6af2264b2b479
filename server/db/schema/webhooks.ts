import { sql } from "drizzle-orm";
import { boolean, check, index, integer, json, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, randomUuidKey, timestamptz, updatedAt } from "./columns";

/**
 * An organization's webhook endpoint: where its events are POSTed, signed with the endpoint's
 * secret. The secret must be usable to sign, so it is kept encrypted (server/platform/secrets.ts
 * `seal`, bound to the endpoint's id), never hashed.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    endpointUuid: randomUuidKey("endpoint_uuid"),
    organizationUuid: text("organization_uuid").notNull(),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    /** The event types (contract/budgets.ts WEBHOOK_EVENT_TYPES) this endpoint receives. */
    eventTypes: text("event_types").array().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /**
     * The circuit breaker (server/webhooks/worker.ts): attempts failed in a row, how many times the
     * breaker opened since the last success (each cool-down twice the last), and while it is open,
     * until when the endpoint's due deliveries wait. A success resets all three.
     */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    breakerTrips: integer("breaker_trips").notNull().default(0),
    pausedUntil: timestamptz("paused_until"),
    /** `enc:v1:…`: the `whsec_…` signing secret sealed under SECRETS_KEY. */
    secretSealed: text("secret_sealed").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("webhook_endpoints_org_idx").on(t.organizationUuid, t.createdAt)],
);

/**
 * One event to one endpoint, and its delivery attempts so far: the delivery queue (pending rows
 * due at next_attempt_at) and the endpoint's delivery log at once.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    deliveryUuid: randomUuidKey("delivery_uuid"),
    endpointUuid: uuid("endpoint_uuid")
      .notNull()
      .references(() => webhookEndpoints.endpointUuid, { onDelete: "cascade" }),
    organizationUuid: text("organization_uuid").notNull(),
    eventId: uuid("event_id").notNull(),
    eventType: text("event_type").notNull(),
    /**
     * The event as sent. `json`, not `jsonb`: the text is kept as written, so every attempt (and
     * its signature) carries the same bytes in the same key order.
     */
    payload: json("payload").notNull(),
    /** pending (queued or between retries), succeeded (a 2xx answer), failed (gave up). */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** When a pending delivery is due; while an attempt is under way, the end of its lease. */
    nextAttemptAt: timestamptz("next_attempt_at"),
    lastAttemptAt: timestamptz("last_attempt_at"),
    /** While an attempt is under way (in flight), the end of its lease; null otherwise. */
    leasedUntil: timestamptz("leased_until"),
    lastStatusCode: integer("last_status_code"),
    /** The last failure: an error, or the start of a non-2xx answer's body (at most 1 kB). */
    lastError: text("last_error"),
    createdAt: createdAt(),
    deliveredAt: timestamptz("delivered_at"),
  },
  (t) => [
    check("webhook_deliveries_status_check", sql`${t.status} in ('pending', 'succeeded', 'failed')`),
    check("webhook_deliveries_last_error_length", sql`char_length(${t.lastError}) <= 1024`),
    // The due queue: only pending rows, by when they are due.
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    // One endpoint's due deliveries, oldest first (the fair claim takes a few per endpoint).
    index("webhook_deliveries_endpoint_due_idx")
      .on(t.endpointUuid, t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    // The attempts in flight, counted against the per-organization and per-endpoint caps.
    index("webhook_deliveries_in_flight_idx").on(t.leasedUntil).where(sql`${t.leasedUntil} is not null`),
    // The per-endpoint delivery log, newest first.
    index("webhook_deliveries_endpoint_idx").on(t.endpointUuid, t.createdAt, t.deliveryUuid),
    index("webhook_deliveries_event_idx").on(t.eventId),
  ],
);
