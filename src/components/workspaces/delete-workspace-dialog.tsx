// Confirms deleting a workspace. Deleting hides it from everyone; members lose access at once.
import { Typography } from "antd";
import type { WorkspaceRecord } from "../../lib/workspaces";
import { DangerConfirmDialog } from "../danger-confirm-dialog";

type Props = {
  workspace: WorkspaceRecord | null;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
};

export function DeleteWorkspaceDialog({ workspace, ...actions }: Props) {
  return (
    <DangerConfirmDialog open={workspace !== null} title="Delete Workspace" okText="Delete" {...actions}>
      <Typography.Paragraph>
        Are you sure you want to delete <Typography.Text strong>{workspace?.name}</Typography.Text>? Its
        members lose access immediately. Billing and usage history remain viewable.
      </Typography.Paragraph>
    </DangerConfirmDialog>
  );
}
