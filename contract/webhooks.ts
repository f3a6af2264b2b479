/**
 * /v1/webhook-endpoints: the server validates and documents its requests and answers with these
 * schemas; the console reads the same shapes as types only (`import type`), so zod stays out of
 * its bundle, and the constants it needs come from contract/webhook-labels.ts.
 */
import { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "./budgets";
import { pageNumberParam, pageSizeParam } from "./paging";
import {
  MAX_WEBHOOK_DELIVERY_PAGE_SIZE,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  WEBHOOK_BREAKER_STATES,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_TEST_EVENT_TYPE,
} from "./webhook-labels";

export * from "./webhook-labels";

/** Every event type a delivery can carry: the subscribable ones and the endpoint's test event. */
export const WEBHOOK_DELIVERY_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE] as const;

/** The body of a test delivery (POST /v1/webhook-endpoints/{endpoint_uuid}/test). */
export const WebhookTestEventSchema = z
  .object({
    id: z.uuid(),
    type: z.literal(WEBHOOK_TEST_EVENT_TYPE),
    created_at: z.iso.datetime(),
    organization_id: z.string(),
    data: z.object({ endpoint_uuid: z.uuid(), message: z.string() }),
  })
  .meta({ id: "WebhookTestEvent" });
export type WebhookTestEvent = z.infer<typeof WebhookTestEventSchema>;

const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `events must be among ${WEBHOOK_EVENT_TYPES.join(", ")}.` }), {
    error: "events must be a list of event types.",
  })
  .min(1, "events must name at least one event type.")
  .max(WEBHOOK_EVENT_TYPES.length, "events has repeats.")
  .refine((v) => new Set(v).size === v.length, "events has repeats.")
  .meta({ description: `The event types sent to this endpoint: ${WEBHOOK_EVENT_TYPES.join(", ")}.` });

const url = z
  .string({ error: "url must be a string." })
  .trim()
  .min(1, "url is required.")
  .max(2048, "url must be at most 2048 characters.")
  .meta({
    description:
      "An absolute http(s) URL. Hosts resolving to loopback, private or link-local addresses are refused unless the deployment allows them (WEBHOOK_ALLOW_PRIVATE_URLS).",
  });

const description = z
  .string({ error: "description must be a string." })
  .trim()
  .max(
    MAX_WEBHOOK_DESCRIPTION_LENGTH,
    `description must be at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters.`,
  );

const enabled = z.boolean({ error: "enabled must be true or false." });

export const WebhookEndpointSchema = z
  .object({
    endpoint_uuid: z.uuid(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    enabled: z
      .boolean()
      .meta({ description: "A disabled endpoint's deliveries wait until it is enabled again." }),
    breaker: z
      .object({
        state: z.enum(WEBHOOK_BREAKER_STATES).meta({
          description:
            "closed: deliveries flow; open: failed attempts in a row paused the endpoint until paused_until " +
            "(its due deliveries wait); half_open: the cool-down is over and one attempt at a time probes " +
            "the receiver; a success closes it, a failure opens it again for twice as long.",
        }),
        consecutive_failures: z
          .int()
          .meta({ description: "Attempts failed in a row since the last success." }),
        paused_until: z.iso
          .datetime()
          .nullable()
          .meta({ description: "While open: when the cool-down ends; else null." }),
      })
      .meta({ description: "The endpoint's circuit breaker (docs/webhooks.md)." }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookEndpointWithSecretSchema = WebhookEndpointSchema.extend({
  secret: z.string().meta({
    description: "The signing secret (whsec_…). Shown only in this answer: store it now.",
  }),
}).meta({ id: "WebhookEndpointWithSecret" });
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecretSchema>;

export const WebhookEndpointListSchema = z
  .object({ endpoints: z.array(WebhookEndpointSchema) })
  .meta({ id: "WebhookEndpointList" });
export type WebhookEndpointList = z.infer<typeof WebhookEndpointListSchema>;

export const CreateWebhookEndpointSchema = z
  .strictObject({ url, description: description.default(""), events, enabled: enabled.default(true) })
  .meta({ id: "CreateWebhookEndpoint" });

export const UpdateWebhookEndpointSchema = z
  .strictObject({
    url: url.optional(),
    description: description.optional(),
    events: events.optional(),
    enabled: enabled.optional(),
  })
  .refine((v) => Object.keys(v).length > 0, "Give at least one of url, description, events, enabled.")
  .meta({ id: "UpdateWebhookEndpoint" });

export const WebhookDeliverySchema = z
  .object({
    delivery_uuid: z.uuid(),
    endpoint_uuid: z.uuid(),
    event_id: z
      .uuid()
      .meta({ description: "The event's id, also sent in the eval-console-event-id header." }),
    event_type: z.enum(WEBHOOK_DELIVERY_EVENT_TYPES),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).meta({
      description: "pending: queued or waiting for a retry; succeeded: a 2xx answer; failed: given up.",
    }),
    attempts: z.int(),
    last_status_code: z
      .int()
      .nullable()
      .meta({ description: "null: no answer (refused, network error, timeout)." }),
    last_error: z.string().nullable().meta({
      description: "The last failure: an error, or the start (at most 1 kB) of a non-2xx answer's body.",
    }),
    next_attempt_at: z.iso
      .datetime()
      .nullable()
      .meta({ description: "When a pending delivery is tried next." }),
    last_attempt_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    delivered_at: z.iso.datetime().nullable(),
    payload: z.record(z.string(), z.unknown()).meta({ description: "The event, the exact body sent." }),
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const WebhookDeliveryPageSchema = z
  .object({
    deliveries: z.array(WebhookDeliverySchema).meta({ description: "Newest first." }),
    total: z.int(),
    page: z.int(),
    page_size: z.int(),
  })
  .meta({ id: "WebhookDeliveryPage" });
export type WebhookDeliveryPage = z.infer<typeof WebhookDeliveryPageSchema>;

export const WebhookDeliveryQuerySchema = z.strictObject({
  status: z
    .enum(WEBHOOK_DELIVERY_STATUSES, {
      error: `status must be one of ${WEBHOOK_DELIVERY_STATUSES.join(", ")}.`,
    })
    .optional(),
  page: pageNumberParam(),
  page_size: pageSizeParam(MAX_WEBHOOK_DELIVERY_PAGE_SIZE, 20),
});
