// Confirms deleting a personal API key.
import { Typography } from "antd";
import { DangerConfirmDialog } from "../danger-confirm-dialog";

type Props = { apiKeyId: string | null; pending: boolean; onConfirm: () => void; onCancel: () => void };

export function DeleteApiKeyDialog({ apiKeyId, ...actions }: Props) {
  return (
    <DangerConfirmDialog open={apiKeyId !== null} title="Delete API Key" okText="Delete" {...actions}>
      <Typography.Paragraph>
        Delete the API key <Typography.Text code>{apiKeyId}</Typography.Text>? Anything using it stops working
        at once. This cannot be undone.
      </Typography.Paragraph>
    </DangerConfirmDialog>
  );
}
