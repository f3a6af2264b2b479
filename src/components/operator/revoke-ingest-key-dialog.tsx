// Confirms revoking an ingestion key: the eval services using it are refused from then on. A
// refusal of the API is shown in the dialog.
import { Alert, Modal, Typography } from "antd";
import type { IngestKey } from "../../lib/operator";

type Props = {
  ingestKey: IngestKey | null;
  pending: boolean;
  /** The API's refusal of the last attempt. */
  error: string | null;
  onConfirm: () => void;
  onCancel: () => void;
};

export function RevokeIngestKeyDialog({ ingestKey, pending, error, onConfirm, onCancel }: Props) {
  return (
    <Modal
      open={ingestKey !== null}
      title="Revoke ingestion key"
      okText="Revoke"
      cancelText="Cancel"
      okButtonProps={{ danger: true, loading: pending }}
      onOk={onConfirm}
      onCancel={onCancel}
      destroyOnHidden
    >
      <Typography.Paragraph>
        Revoke the ingestion key <Typography.Text strong>{ingestKey?.name}</Typography.Text>? Eval services
        sending usage with it are refused at once. This cannot be undone.
      </Typography.Paragraph>
      {error ? <Alert type="error" showIcon role="alert" message={error} /> : null}
    </Modal>
  );
}
