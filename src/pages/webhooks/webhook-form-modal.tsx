// The form of a new or changed webhook endpoint, in a modal driven by Refine's useModalForm: URL,
// description, the event types it receives, and whether it is enabled. The server checks the URL
// (http(s) only, no private addresses) and its message shows under the field.
import type { UseModalFormReturnType } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Checkbox, Flex, Form, Input, Switch, Typography } from "antd";
import { MAX_WEBHOOK_DESCRIPTION_LENGTH } from "../../../contract/webhook-labels";
import { FormModal } from "../../components/form-modal";
import { EVENT_OPTIONS, type WebhookEndpoint } from "./webhook-text";

export type WebhookFormValues = Pick<WebhookEndpoint, "url" | "description" | "events" | "enabled">;

type Props = {
  action: "create" | "edit";
  modal: UseModalFormReturnType<WebhookEndpoint, HttpError, WebhookFormValues>;
};

export function WebhookFormModal({ action, modal }: Props) {
  const { modalProps, formProps } = modal;
  return (
    <FormModal
      {...modalProps}
      title={action === "create" ? "Add Webhook Endpoint" : "Edit Webhook Endpoint"}
      okText={action === "create" ? "Add Endpoint" : "Save"}
      destroyOnHidden
    >
      <Form
        {...formProps}
        // Its own field ids: the page holds both the create and the edit form.
        name={`webhook-${action}`}
        layout="vertical"
        onFinish={async (values) => {
          try {
            await formProps.onFinish?.(values);
          } catch {
            // The failure notification (with the server's reason) already told the user; the modal
            // stays open with their input to correct.
          }
        }}
        initialValues={
          action === "create" ? { enabled: true, events: EVENT_OPTIONS.map((o) => o.value) } : undefined
        }
      >
        <Form.Item
          label="Endpoint URL"
          name="url"
          rules={[
            { required: true, whitespace: true, message: "Enter the URL that receives the events." },
            { type: "url", message: "Enter an absolute URL, e.g. https://example.com/webhooks." },
          ]}
          extra="Events are POSTed here as signed JSON. Use https in production."
        >
          <Input placeholder="https://example.com/webhooks" autoFocus />
        </Form.Item>
        <Form.Item label="Description" name="description">
          <Input
            maxLength={MAX_WEBHOOK_DESCRIPTION_LENGTH}
            placeholder="What receives these events (optional)"
          />
        </Form.Item>
        <Form.Item
          label="Events"
          name="events"
          rules={[{ required: true, type: "array", min: 1, message: "Choose at least one event." }]}
        >
          <Checkbox.Group style={{ width: "100%" }}>
            <Flex vertical gap={8}>
              {EVENT_OPTIONS.map((o) => (
                <Checkbox key={o.value} value={o.value}>
                  <Typography.Text code>{o.label}</Typography.Text>{" "}
                  <Typography.Text type="secondary">{o.description}</Typography.Text>
                </Checkbox>
              ))}
            </Flex>
          </Checkbox.Group>
        </Form.Item>
        <Form.Item label="Enabled" name="enabled" valuePropName="checked">
          <Switch />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
