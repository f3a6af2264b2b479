// What both webhooks pages do to an endpoint: edit it in the form (useEndpointEditModal), enable or disable it, rotate its
// secret (after a confirmation; the new secret is then shown once), delete it (after a
// confirmation), send it a test event. Each answers through a notification on failure.
import { useModalForm } from "@refinedev/antd";
import {
  type HttpError,
  useCustomMutation,
  useInvalidate,
  useNotification,
  useUpdate,
} from "@refinedev/core";
import { Typography } from "antd";
import { useState } from "react";
import { DangerConfirmDialog } from "../../components/danger-confirm-dialog";
import { useConfirmedDelete, useConfirmTarget } from "../../hooks/use-confirmed-delete";
import { webhookEndpoints as resource, webhookDeliveries } from "../../resources/webhook-endpoints";
import type { WebhookFormValues } from "./webhook-form-modal";
import {
  errorMessage,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from "./webhook-text";

const path = (e: WebhookEndpoint, tail: string) =>
  `/v1/webhook-endpoints/${encodeURIComponent(e.endpoint_uuid)}/${tail}`;
/** A failed call's notification: the step as its heading, the API's reason below it. */
export const webhookFailure = (message: string) => (error?: HttpError) => ({
  type: "error" as const,
  key: "webhook-failure",
  message: errorMessage(error, message),
  description: message,
});

export function useEndpointEditModal() {
  return useModalForm<WebhookEndpoint, HttpError, WebhookFormValues>({
    resource: resource.name,
    action: "edit",
    redirect: false,
    successNotification: () => ({ type: "success", key: "webhook-saved", message: "Endpoint saved" }),
    errorNotification: webhookFailure("Failed to save the endpoint."),
  });
}

export function useWebhookActions(opts: { onDeleted?: () => void } = {}) {
  const { open } = useNotification();
  const invalidate = useInvalidate();
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | null>(null);
  const rotation = useConfirmTarget<WebhookEndpoint>();
  const { mutate: update, mutation: updating } = useUpdate<WebhookEndpoint, HttpError>();
  const deletion = useConfirmedDelete<WebhookEndpoint>({
    resource: resource.name,
    id: (e) => e.endpoint_uuid,
    successNotification: () => ({ type: "success", key: "webhook-deleted", message: "Endpoint deleted" }),
    errorNotification: webhookFailure("Failed to delete the endpoint."),
    onDeleted: () => opts.onDeleted?.(),
  });
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
      errorNotification: webhookFailure("Failed to change the endpoint."),
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
        errorNotification: webhookFailure("Failed to send a test event."),
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
        errorNotification: webhookFailure("Failed to retry the delivery."),
      },
      { onSuccess: refreshLog },
    );

  const rotate = (endpoint: WebhookEndpoint) =>
    call(
      {
        url: path(endpoint, "rotate-secret"),
        method: "post",
        values: {},
        successNotification: false,
        errorNotification: webhookFailure("Failed to rotate the secret."),
      },
      {
        onSuccess: (res) =>
          setSecret({ value: (res.data as WebhookEndpointWithSecret).secret, rotated: true }),
        onSettled: rotation.close,
      },
    );

  const dialogs = (
    <>
      <DangerConfirmDialog
        title="Rotate signing secret"
        okText="Rotate"
        {...rotation.dialog(calling.isPending, rotate)}
      >
        <Typography.Paragraph>
          A new secret replaces the current one at once: deliveries from now on, retries included, are signed
          with the new secret only. Update your receiver right after.
        </Typography.Paragraph>
      </DangerConfirmDialog>
      <DangerConfirmDialog title="Delete webhook endpoint" okText="Delete" {...deletion.dialog}>
        <Typography.Paragraph>
          Delete the endpoint <Typography.Text strong>{deletion.target?.url}</Typography.Text>? Its delivery
          log goes with it and its pending deliveries are not sent.
        </Typography.Paragraph>
      </DangerConfirmDialog>
    </>
  );

  return {
    setEnabled,
    sendTest,
    retry,
    askRotate: rotation.ask,
    askDelete: deletion.ask,
    /** A secret to show once: from a creation (`showSecret`) or a rotation. */
    secret,
    showSecret: (value: string) => setSecret({ value, rotated: false }),
    closeSecret: () => setSecret(null),
    pending: { update: updating.isPending, call: calling.isPending },
    dialogs,
    notify: open,
  };
}
