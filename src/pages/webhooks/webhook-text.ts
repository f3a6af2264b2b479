// Words and colours of the webhooks pages: event types, delivery statuses, times and API errors.
import type { WebhookEventType } from "../../../contract/budgets";
import {
  WEBHOOK_EVENT_LABELS,
  WEBHOOK_TEST_EVENT_TYPE,
  type WebhookDeliveryStatus,
} from "../../../contract/webhook-labels";
import type { WebhookDelivery, WebhookEndpoint } from "../../../contract/webhooks";

export type { WebhookDelivery, WebhookEndpoint };
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string };

export const EVENT_OPTIONS = (Object.keys(WEBHOOK_EVENT_LABELS) as WebhookEventType[]).map((type) => ({
  value: type,
  label: type,
  description: WEBHOOK_EVENT_LABELS[type],
}));

export const eventMeaning = (type: string) =>
  type === WEBHOOK_TEST_EVENT_TYPE
    ? "A test event sent from this page"
    : (WEBHOOK_EVENT_LABELS[type as WebhookEventType] ?? type);

export const STATUS_TAG: Record<WebhookDeliveryStatus, { color: string; label: string }> = {
  pending: { color: "processing", label: "Pending" },
  succeeded: { color: "success", label: "Succeeded" },
  failed: { color: "error", label: "Failed" },
};

/** A time as the console shows it: local date and time, to the second. */
export const formatTime = (iso: string | null) =>
  iso
    ? new Date(iso).toLocaleString("en-US", {
        year: "numeric",
        month: "short",
        day: "numeric",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      })
    : "—";

/** The API's message of a failed call (the data provider's HttpError carries it), else a fallback. */
export const errorMessage = (error: unknown, fallback: string): string =>
  (error as Error | null)?.message || fallback;
