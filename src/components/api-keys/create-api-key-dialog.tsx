// Chooses how long a new key lives (default one year) and creates it.
import type { UseModalFormReturnType } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Form, Select, Typography } from "antd";
import {
  type CreatedApiKey,
  DEFAULT_EXPIRATION,
  EXPIRATION_OPTIONS,
  type ExpirationOption,
} from "../../lib/api-keys";
import { FormModal } from "../form-modal";

export type CreateApiKeyValues = { expiration_option: ExpirationOption };

type Props = { modal: UseModalFormReturnType<CreatedApiKey, HttpError, CreateApiKeyValues> };

export function CreateApiKeyDialog({ modal }: Props) {
  const { modalProps, formProps, formLoading } = modal;
  return (
    <FormModal
      {...modalProps}
      width={440}
      title="Create API Key"
      okText="Create"
      okButtonProps={{ ...modalProps.okButtonProps, disabled: formLoading, loading: formLoading }}
    >
      <Typography.Paragraph type="secondary">
        The key acts as you. Choose when it expires.
      </Typography.Paragraph>
      <Form
        {...formProps}
        layout="vertical"
        initialValues={{ expiration_option: DEFAULT_EXPIRATION }}
        onFinish={async (values) => {
          try {
            await formProps.onFinish?.(values);
          } catch {
            // The "Failed to create API key" toast has told the user; the dialog stays open.
          }
        }}
      >
        <Form.Item
          label="Expiration"
          name="expiration_option"
          htmlFor="api-key-expiration"
          rules={[{ required: true }]}
        >
          <Select
            id="api-key-expiration"
            options={EXPIRATION_OPTIONS.map((option) => ({ value: option.value, label: option.label }))}
          />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
