// Confirms deleting a personal API key.
import { Modal, Typography } from "antd";

type Props = { apiKeyId: string | null; pending: boolean; onConfirm: () => void; onCancel: () => void };

export function DeleteApiKeyDialog({ apiKeyId, pending, onConfirm, onCancel }: Props) {
  return (
    <Modal
      open={apiKeyId !== null}
      title="Delete API Key"
      okText="Delete"
      cancelText="Cancel"
      okButtonProps={{ danger: true, loading: pending }}
      onOk={onConfirm}
      onCancel={onCancel}
      destroyOnHidden
    >
      <Typography.Paragraph>
        Delete the API key <Typography.Text code>{apiKeyId}</Typography.Text>? Anything using it stops working
        at once. This cannot be undone.
      </Typography.Paragraph>
    </Modal>
  );
}
