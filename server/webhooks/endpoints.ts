import { randomUUID } from "node:crypto";
import { and, count, desc, eq, sql } from "drizzle-orm";
import type { WebhookEventType } from "../../contract/budgets";
import {
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_TEST_EVENT_TYPE,
  type WebhookDelivery,
  type WebhookDeliveryStatus,
  type WebhookEndpoint,
} from "../../contract/webhooks";
import { webhookDeliveries, webhookEndpoints } from "../db/schema";
import { type Actor, type AuditAction, type Snapshot, writeAudit } from "../platform/audit";
import type { Db, Tx } from "../platform/database";
import { ApiError } from "../platform/errors";
import { REDACTED, redactUrl } from "../platform/logger";
import { pageWindow, readPage } from "../platform/paged-list";
import type { Keyring } from "../platform/secrets";
import { buildEvent } from "./enqueue";
import { newSigningSecret, sealSigningSecret } from "./secrets";
import { wakeWorkers } from "./wake";

/** An organization's webhook endpoints and their delivery logs, as the API changes and reads them. */

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export type EndpointFields = {
  url: string;
  description: string;
  events: WebhookEventType[];
  enabled: boolean;
};

export const endpointJson = (r: EndpointRow): WebhookEndpoint => ({
  endpoint_uuid: r.endpointUuid,
  url: r.url,
  description: r.description,
  events: r.eventTypes as WebhookEventType[],
  enabled: r.enabled,
  breaker: breakerJson(r),
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

/** Open while its cool-down runs; half open once it is over, until an attempt succeeds. */
function breakerJson(r: EndpointRow): WebhookEndpoint["breaker"] {
  const open = r.pausedUntil !== null && r.pausedUntil.getTime() > Date.now();
  return {
    state: open ? "open" : r.breakerTrips > 0 ? "half_open" : "closed",
    consecutive_failures: r.consecutiveFailures,
    paused_until: open ? (r.pausedUntil as Date).toISOString() : null,
  };
}

/**
 * Ends an open breaker's cool-down at once (a test event or a retry by hand): the endpoint is half
 * open, so the next attempt probes the receiver, one at a time, and a success closes the breaker.
 */
async function endCoolDown(tx: Tx, id: string) {
  await tx
    .update(webhookEndpoints)
    .set({ pausedUntil: null })
    .where(and(eq(webhookEndpoints.endpointUuid, id), sql`${webhookEndpoints.pausedUntil} is not null`));
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const deliveryJson = (r: DeliveryRow): WebhookDelivery => ({
  delivery_uuid: r.deliveryUuid,
  endpoint_uuid: r.endpointUuid,
  event_id: r.eventId,
  event_type: r.eventType as WebhookDelivery["event_type"],
  status: r.status as WebhookDeliveryStatus,
  attempts: r.attempts,
  last_status_code: r.lastStatusCode,
  last_error: r.lastError,
  next_attempt_at: r.status === "pending" ? iso(r.nextAttemptAt) : null,
  last_attempt_at: iso(r.lastAttemptAt),
  created_at: r.createdAt.toISOString(),
  delivered_at: iso(r.deliveredAt),
  payload: (typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload) as Record<string, unknown>,
});

/** What the audit log keeps of an endpoint (never its secret). */
/**
 * An endpoint URL as the audit log keeps it: scheme, host and path, with token-like path parts
 * and every query value replaced by [REDACTED]. Receivers often put their credential in the URL
 * (?token=…, a Slack-style secret path); the audit log is read by every administrator and kept
 * for a year, the endpoint list shows the whole URL to those who manage it.
 */
export function auditUrl(raw: string): string {
  try {
    const u = new URL(raw);
    const query = [...u.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=${REDACTED}`).join("&");
    return `${u.origin}${redactUrl(u.pathname)}${query ? `?${query}` : ""}`;
  } catch {
    return REDACTED;
  }
}

const auditFields = (r: EndpointRow) => ({
  url: auditUrl(r.url),
  description: r.description,
  events: r.eventTypes,
  enabled: r.enabled,
});

const notFound = () => new ApiError("not_found", "No such webhook endpoint in your organization.");

export async function listEndpoints(db: Db, org: string): Promise<WebhookEndpoint[]> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationUuid, org))
    .orderBy(desc(webhookEndpoints.createdAt), webhookEndpoints.endpointUuid);
  return rows.map(endpointJson);
}

/** The organization's endpoint (locked for update inside a transaction), or 404. */
async function findEndpoint(q: Db | Tx, org: string, id: string, lock = false): Promise<EndpointRow> {
  const query = q
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.organizationUuid, org), eq(webhookEndpoints.endpointUuid, id)));
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw notFound();
  return row;
}

export const getEndpoint = async (db: Db, org: string, id: string) =>
  endpointJson(await findEndpoint(db, org, id));

/** The audit entry of a change to an endpoint, named by its id and (credential-free) URL. */
const auditEndpoint = (
  tx: Tx,
  org: string,
  actor: Actor,
  action: AuditAction,
  r: EndpointRow,
  change: { before?: Snapshot; after?: Snapshot } = {},
) =>
  writeAudit(tx, {
    organizationUuid: org,
    actor,
    action,
    target: { type: "webhook_endpoint", id: r.endpointUuid, label: auditUrl(r.url) },
    ...change,
  });

/**
 * Writes a new signing secret to endpoint `id` (`write` stores it sealed, bound to the id) in one
 * transaction, and answers the endpoint with the secret: the only time it is shown in clear.
 */
async function withNewSecret(
  db: Db,
  keyring: Keyring,
  id: string,
  write: (tx: Tx, sealed: string) => Promise<EndpointRow>,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newSigningSecret();
  return db.transaction(async (tx) => {
    const row = await write(tx, sealSigningSecret(keyring, id, secret));
    return { endpoint: endpointJson(row), secret };
  });
}

export async function createEndpoint(
  db: Db,
  keyring: Keyring,
  org: string,
  actor: Actor,
  fields: EndpointFields,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const id = randomUUID();
  return withNewSecret(db, keyring, id, async (tx, sealed) => {
    // Serializes creations in one organization, so two at once cannot both pass the limit.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('webhook_endpoints'), hashtext(${org}))`);
    const [n] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.organizationUuid, org));
    if ((n?.n ?? 0) >= MAX_WEBHOOK_ENDPOINTS)
      throw new ApiError(
        "conflict",
        `An organization has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first.`,
      );
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        endpointUuid: id,
        organizationUuid: org,
        url: fields.url,
        description: fields.description,
        eventTypes: fields.events,
        enabled: fields.enabled,
        secretSealed: sealed,
      })
      .returning();
    const created = row as EndpointRow;
    await auditEndpoint(tx, org, actor, "webhook_endpoint.created", created, { after: auditFields(created) });
    return created;
  });
}

export async function updateEndpoint(
  db: Db,
  org: string,
  actor: Actor,
  id: string,
  patch: Partial<EndpointFields>,
): Promise<WebhookEndpoint> {
  return db.transaction(async (tx) => {
    const before = await findEndpoint(tx, org, id, true);
    const resetBreaker =
      ((patch.url !== undefined && patch.url !== before.url) || (patch.enabled && !before.enabled)) &&
      (before.consecutiveFailures > 0 || before.breakerTrips > 0 || before.pausedUntil !== null);
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.events !== undefined ? { eventTypes: patch.events } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
        // A new receiver, or one enabled again, starts with a closed breaker.
        ...(resetBreaker ? { consecutiveFailures: 0, breakerTrips: 0, pausedUntil: null } : {}),
        updatedAt: sql`now()`,
      })
      .where(eq(webhookEndpoints.endpointUuid, id))
      .returning();
    const after = row as EndpointRow;
    const b = auditFields(before);
    const a = auditFields(after);
    const changed = (Object.keys(a) as (keyof typeof a)[]).filter(
      (k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]),
    );
    if (changed.length)
      await auditEndpoint(tx, org, actor, "webhook_endpoint.changed", after, {
        before: Object.fromEntries(changed.map((k) => [k, b[k]])),
        after: Object.fromEntries(changed.map((k) => [k, a[k]])),
      });
    // An endpoint enabled again, or its breaker closed: its waiting deliveries are due.
    if ((patch.enabled && !before.enabled) || resetBreaker) await wakeWorkers(tx);
    return endpointJson(after);
  });
}

export async function rotateSecret(
  db: Db,
  keyring: Keyring,
  org: string,
  actor: Actor,
  id: string,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  return withNewSecret(db, keyring, id, async (tx, sealed) => {
    await findEndpoint(tx, org, id, true);
    const [row] = await tx
      .update(webhookEndpoints)
      .set({ secretSealed: sealed, updatedAt: sql`now()` })
      .where(eq(webhookEndpoints.endpointUuid, id))
      .returning();
    const rotated = row as EndpointRow;
    await auditEndpoint(tx, org, actor, "webhook_endpoint.secret_rotated", rotated);
    return rotated;
  });
}

/** Deletes the endpoint and, with it, its delivery log (pending deliveries are never sent). */
export async function deleteEndpoint(db: Db, org: string, actor: Actor, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await findEndpoint(tx, org, id, true);
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.endpointUuid, id));
    await auditEndpoint(tx, org, actor, "webhook_endpoint.deleted", row, { before: auditFields(row) });
  });
}

/** Queues a signed `webhook.test` event to this one endpoint; answers its delivery. */
export async function sendTestEvent(db: Db, org: string, id: string): Promise<WebhookDelivery> {
  return db.transaction(async (tx) => {
    const endpoint = await findEndpoint(tx, org, id);
    if (!endpoint.enabled)
      throw new ApiError("conflict", "The endpoint is disabled: enable it to send a test event.");
    await endCoolDown(tx, id);
    const event = buildEvent(org, WEBHOOK_TEST_EVENT_TYPE, {
      endpoint_uuid: id,
      message: "A test event from Eval Console: the endpoint receives and verifies signed deliveries.",
    });
    const [row] = await tx
      .insert(webhookDeliveries)
      .values({
        endpointUuid: id,
        organizationUuid: org,
        eventId: event.id,
        eventType: event.type,
        payload: sql`${JSON.stringify(event)}::json`,
        nextAttemptAt: sql`now()`,
      })
      .returning();
    await wakeWorkers(tx);
    return deliveryJson(row as DeliveryRow);
  });
}

export async function listDeliveries(
  db: Db,
  org: string,
  id: string,
  q: { status?: WebhookDeliveryStatus | undefined; page: number; pageSize: number },
) {
  await findEndpoint(db, org, id);
  const where = and(
    eq(webhookDeliveries.endpointUuid, id),
    q.status ? eq(webhookDeliveries.status, q.status) : undefined,
  );
  const { rows, total } = await readPage(
    db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.deliveryUuid))
      .$dynamic(),
    db.$count(webhookDeliveries, where),
    pageWindow(q.page, q.pageSize),
  );
  return { deliveries: rows.map(deliveryJson), total, page: q.page, page_size: q.pageSize };
}

/**
 * Makes a delivery due now: a failed one gets one more attempt (and is failed again if it fails),
 * a succeeded one is sent again (same event id: receivers drop duplicates), a pending one skips
 * the rest of its wait.
 */
export async function retryDelivery(db: Db, org: string, id: string, deliveryId: string) {
  return db.transaction(async (tx) => {
    const endpoint = await findEndpoint(tx, org, id);
    if (!endpoint.enabled)
      throw new ApiError("conflict", "The endpoint is disabled: enable it to retry deliveries.");
    const [row] = await tx
      .update(webhookDeliveries)
      .set({ status: "pending", nextAttemptAt: sql`now()` })
      .where(and(eq(webhookDeliveries.endpointUuid, id), eq(webhookDeliveries.deliveryUuid, deliveryId)))
      .returning();
    if (!row) throw new ApiError("not_found", "No such delivery of this webhook endpoint.");
    await endCoolDown(tx, id);
    await wakeWorkers(tx);
    return deliveryJson(row);
  });
}
