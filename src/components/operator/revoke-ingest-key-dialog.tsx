// Confirms revoking an ingestion key: the eval services using it are refused from then on. A
// refusal of the API is shown in the dialog.
import { Typography } from "antd";
import type { IngestKey } from "../../lib/operator";
import { DangerConfirmDialog } from "../danger-confirm-dialog";

type Props = {
  ingestKey: IngestKey | null;
  pending: boolean;
  /** The API's refusal of the last attempt. */
  error: string | null;
  onConfirm: () => void;
  onCancel: () => void;
};

export function RevokeIngestKeyDialog({ ingestKey, ...actions }: Props) {
  return (
    <DangerConfirmDialog open={ingestKey !== null} title="Revoke ingestion key" okText="Revoke" {...actions}>
      <Typography.Paragraph>
        Revoke the ingestion key <Typography.Text strong>{ingestKey?.name}</Typography.Text>? Eval services
        sending usage with it are refused at once. This cannot be undone.
      </Typography.Paragraph>
    </DangerConfirmDialog>
  );
}
