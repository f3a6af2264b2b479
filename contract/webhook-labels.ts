/**
 * Webhook constants shared by the server and the console (plain values, no zod: the console
 * imports them into its bundle).
 */
import type { WebhookEventType } from "./budgets";

/** The event a test delivery carries; sent only by POST …/test, never subscribed to. */
export const WEBHOOK_TEST_EVENT_TYPE = "webhook.test";

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** An endpoint's circuit breaker (docs/webhooks.md "Fair delivery and the circuit breaker"). */
export const WEBHOOK_BREAKER_STATES = ["closed", "open", "half_open"] as const;
export type WebhookBreakerState = (typeof WEBHOOK_BREAKER_STATES)[number];

/** At most this many endpoints per organization. */
export const MAX_WEBHOOK_ENDPOINTS = 20;
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;
export const MAX_WEBHOOK_DELIVERY_PAGE_SIZE = 100;

/** What each subscribable event type means, for people (the console's checkboxes, the docs). */
export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = {
  "budget.alert.triggered": "A budget's spend crossed one of its alert thresholds",
  "budget.alert.resolved": "A budget's spend fell back below a crossed threshold (credit, new cycle)",
  "eval_run.finished": "An eval run finished: its cost, outcomes, pass rate and cost per passed case",
};
