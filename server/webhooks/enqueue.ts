import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { BudgetAlert, WebhookEvent, WebhookEventType } from "../../contract/budgets";
import type { EvalRunFigures } from "../../contract/eval-run-outcomes";
import type { Db, Tx } from "../platform/database";
import { wakeWorkers } from "./wake";

export type WebhookEventInput = {
  organizationId: string;
  type: WebhookEventType;
  data: BudgetAlert | EvalRunFigures;
};

/** The event's JSON body, keys in the documented order (contract/budgets.ts WebhookEvent). */
export function buildEvent(organizationId: string, type: string, data: unknown) {
  return {
    id: randomUUID(),
    type,
    created_at: new Date().toISOString(),
    organization_id: organizationId,
    data,
  };
}

/**
 * Queues an event for the organization's webhooks: one pending delivery per enabled endpoint
 * subscribed to its type, inserted in the caller's transaction, so an event whose cause rolls
 * back is never sent. Answers the event's id (the same id on every endpoint's delivery and on
 * every retry). The delivery workers are woken when the transaction commits.
 */
export async function enqueueWebhookEvent(tx: Tx | Db, input: WebhookEventInput): Promise<string> {
  const event: WebhookEvent = buildEvent(input.organizationId, input.type, input.data) as WebhookEvent;
  const inserted = await tx.execute(sql`
    insert into webhook_deliveries
      (endpoint_uuid, organization_uuid, event_id, event_type, payload, next_attempt_at)
    select endpoint_uuid, organization_uuid, ${event.id}::uuid, ${event.type}, ${JSON.stringify(event)}::json, now()
      from webhook_endpoints
     where organization_uuid = ${input.organizationId}
       and enabled
       and ${event.type} = any(event_types)
    returning delivery_uuid`);
  if (rowsOf(inserted).length) await wakeWorkers(tx);
  return event.id;
}

/** Rows of a raw `execute`, from either driver (node-postgres and PGlite both answer `rows`). */
export const rowsOf = <T = Record<string, unknown>>(result: unknown): T[] => (result as { rows: T[] }).rows;
