// What both webhooks pages do to an endpoint besides the form: enable or disable it, rotate its
// secret (after a confirmation; the new secret is then shown once), delete it (after a
// confirmation), send it a test event. Each answers through a notification on failure.
import {
  type HttpError,
  useCustomMutation,
  useDelete,
  useInvalidate,
  useNotification,
  useUpdate,
} from "@refinedev/core";
import { Typography } from "antd";
import { useState } from "react";
import { DangerConfirmDialog } from "../../components/danger-confirm-dialog";
import { webhookEndpoints as resource, webhookDeliveries } from "../../resources/webhook-endpoints";
import {
  errorMessage,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from "./webhook-text";

const path = (e: WebhookEndpoint, tail: string) =>
  `/v1/webhook-endpoints/${encodeURIComponent(e.endpoint_uuid)}/${tail}`;
const failure = (message: string) => (error?: HttpError) => ({
  type: "error" as const,
  key: "webhook-failure",
  message: errorMessage(error, message),
  description: message,
});

export function useWebhookActions(opts: { onDeleted?: () => void } = {}) {
  const { open } = useNotification();
  const invalidate = useInvalidate();
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | null>(null);
  const [rotating, setRotating] = useState<WebhookEndpoint | null>(null);
  const [deleting, setDeleting] = useState<WebhookEndpoint | null>(null);
  const { mutate: update, mutation: updating } = useUpdate<WebhookEndpoint, HttpError>();
  const { mutate: remove, mutation: removal } = useDelete();
  const { mutate: call, mutation: calling } = useCustomMutation<
    WebhookEndpointWithSecret | WebhookDelivery
  >();

  const setEnabled = (endpoint: WebhookEndpoint, enabled: boolean) =>
    update({
      resource: resource.name,
      id: endpoint.endpoint_uuid,
      values: { enabled },
      successNotification: () => ({
        type: "success",
        key: "webhook-enabled",
        message: enabled ? "Endpoint enabled" : "Endpoint disabled",
      }),
      errorNotification: failure("Failed to change the endpoint."),
    });

  const refreshLog = () => invalidate({ resource: webhookDeliveries.name, invalidates: ["list"] });

  const sendTest = (endpoint: WebhookEndpoint) =>
    call(
      {
        url: path(endpoint, "test"),
        method: "post",
        values: {},
        successNotification: () => ({
          type: "success",
          key: "webhook-test",
          // Refine's antd notifications show `description` as the heading, `message` below it.
          description: "Test event queued",
          message: "It is sent at once; follow it in the delivery log.",
        }),
        errorNotification: failure("Failed to send a test event."),
      },
      { onSuccess: refreshLog },
    );

  const retry = (endpoint: WebhookEndpoint, delivery: WebhookDelivery) =>
    call(
      {
        url: path(endpoint, `deliveries/${encodeURIComponent(delivery.delivery_uuid)}/retry`),
        method: "post",
        values: {},
        successNotification: () => ({
          type: "success",
          key: "webhook-retry",
          message: "Delivery queued again",
        }),
        errorNotification: failure("Failed to retry the delivery."),
      },
      { onSuccess: refreshLog },
    );

  const confirmRotate = () => {
    if (!rotating) return;
    call(
      {
        url: path(rotating, "rotate-secret"),
        method: "post",
        values: {},
        successNotification: false,
        errorNotification: failure("Failed to rotate the secret."),
      },
      {
        onSuccess: (res) =>
          setSecret({ value: (res.data as WebhookEndpointWithSecret).secret, rotated: true }),
        onSettled: () => setRotating(null),
      },
    );
  };

  const confirmDelete = () => {
    if (!deleting) return;
    remove(
      {
        resource: resource.name,
        id: deleting.endpoint_uuid,
        successNotification: () => ({ type: "success", key: "webhook-deleted", message: "Endpoint deleted" }),
        errorNotification: failure("Failed to delete the endpoint."),
      },
      {
        onSuccess: () => opts.onDeleted?.(),
        onSettled: () => setDeleting(null),
      },
    );
  };

  const dialogs = (
    <>
      <DangerConfirmDialog
        open={rotating !== null}
        title="Rotate signing secret"
        okText="Rotate"
        pending={calling.isPending}
        onConfirm={confirmRotate}
        onCancel={() => setRotating(null)}
      >
        <Typography.Paragraph>
          A new secret replaces the current one at once: deliveries from now on, retries included, are signed
          with the new secret only. Update your receiver right after.
        </Typography.Paragraph>
      </DangerConfirmDialog>
      <DangerConfirmDialog
        open={deleting !== null}
        title="Delete webhook endpoint"
        okText="Delete"
        pending={removal.isPending}
        onConfirm={confirmDelete}
        onCancel={() => setDeleting(null)}
      >
        <Typography.Paragraph>
          Delete the endpoint <Typography.Text strong>{deleting?.url}</Typography.Text>? Its delivery log goes
          with it and its pending deliveries are not sent.
        </Typography.Paragraph>
      </DangerConfirmDialog>
    </>
  );

  return {
    setEnabled,
    sendTest,
    retry,
    askRotate: setRotating,
    askDelete: setDeleting,
    /** A secret to show once: from a creation (`showSecret`) or a rotation. */
    secret,
    showSecret: (value: string) => setSecret({ value, rotated: false }),
    closeSecret: () => setSecret(null),
    pending: { update: updating.isPending, call: calling.isPending },
    dialogs,
    notify: open,
  };
}
