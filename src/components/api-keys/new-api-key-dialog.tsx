// Shows a just-created key once: its id and token with copy buttons and the "Sensitive" warning.
// The token lives only in the caller's state, which closing this dialog clears.
import { CopyOutlined } from "@ant-design/icons";
import { useNotification } from "@refinedev/core";
import { Alert, Button, Flex, Input, Modal, Space, Typography } from "antd";
import type { CreatedApiKey } from "../../lib/api-keys";

type Props = { created: CreatedApiKey | null; onClose: () => void };

function CopyField({
  id,
  label,
  value,
  copiedText,
  onCopy,
}: {
  id: string;
  label: string;
  value: string;
  copiedText: string;
  onCopy: (value: string, copiedText: string) => void;
}) {
  return (
    <Flex vertical gap={4}>
      <Typography.Text strong>
        <label htmlFor={id}>{label}</label>
      </Typography.Text>
      <Space.Compact style={{ width: "100%" }}>
        <Input
          id={id}
          value={value}
          readOnly
          style={{ fontFamily: "monospace" }}
          onFocus={(e) => e.target.select()}
        />
        <Button
          icon={<CopyOutlined />}
          aria-label={`Copy ${label}`}
          onClick={() => onCopy(value, copiedText)}
        >
          Copy
        </Button>
      </Space.Compact>
    </Flex>
  );
}

export function NewApiKeyDialog({ created, onClose }: Props) {
  const { open } = useNotification();
  const copy = async (value: string, copiedText: string) => {
    try {
      await navigator.clipboard.writeText(value);
      open?.({ type: "success", key: "api-key-copy", message: copiedText });
    } catch {
      open?.({
        type: "error",
        key: "api-key-copy",
        message: "Copy failed",
        description: "Select the text and copy it.",
      });
    }
  };

  return (
    <Modal
      open={created !== null}
      title="Your new API key"
      onCancel={onClose}
      maskClosable={false}
      destroyOnHidden
      footer={
        <Button type="primary" onClick={onClose}>
          Done
        </Button>
      }
    >
      {created ? (
        <Flex vertical gap={16}>
          <CopyField
            id="new-api-key-id"
            label="Key ID"
            value={created.api_key_id}
            copiedText="Copied Key ID"
            onCopy={copy}
          />
          <CopyField
            id="new-api-key-token"
            label="API Key"
            value={created.api_key_token}
            copiedText="Copied API Key"
            onCopy={copy}
          />
          <Alert
            type="warning"
            showIcon
            message="Sensitive"
            description="This API key is shown only once. Anyone with it can access your account, so treat it like a password."
          />
        </Flex>
      ) : null}
    </Modal>
  );
}
