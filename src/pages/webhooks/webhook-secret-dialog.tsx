// Shows a signing secret once, just after an endpoint was added or its secret rotated, with a
// copy button. The secret lives only in the caller's state, which closing this dialog clears.
import { CopyOutlined } from "@ant-design/icons";
import { useNotification } from "@refinedev/core";
import { Alert, Button, Flex, Input, Modal, Space, Typography } from "antd";

type Props = { secret: string | null; rotated?: boolean; onClose: () => void };

export function WebhookSecretDialog({ secret, rotated = false, onClose }: Props) {
  const { open } = useNotification();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret ?? "");
      open?.({ type: "success", key: "webhook-secret-copy", message: "Copied signing secret" });
    } catch {
      open?.({
        type: "error",
        key: "webhook-secret-copy",
        message: "Copy failed",
        description: "Select the text and copy it.",
      });
    }
  };
  return (
    <Modal
      open={secret !== null}
      title={rotated ? "New signing secret" : "Your endpoint's signing secret"}
      onCancel={onClose}
      maskClosable={false}
      destroyOnHidden
      footer={
        <Button type="primary" onClick={onClose}>
          Done
        </Button>
      }
    >
      <Flex vertical gap={16}>
        <Flex vertical gap={4}>
          <Typography.Text strong>
            <label htmlFor="webhook-signing-secret">Signing secret</label>
          </Typography.Text>
          <Space.Compact style={{ width: "100%" }}>
            <Input
              id="webhook-signing-secret"
              value={secret ?? ""}
              readOnly
              style={{ fontFamily: "monospace" }}
              onFocus={(e) => e.target.select()}
            />
            <Button icon={<CopyOutlined />} aria-label="Copy signing secret" onClick={copy}>
              Copy
            </Button>
          </Space.Compact>
        </Flex>
        <Alert
          type="warning"
          showIcon
          message="Shown only once"
          description={
            <>
              Store it where your receiver can read it: it verifies the{" "}
              <Typography.Text code>eval-console-signature</Typography.Text> header of every delivery.{" "}
              {rotated ? "Deliveries from now on are signed with this secret only." : ""}
            </>
          }
        />
      </Flex>
    </Modal>
  );
}
