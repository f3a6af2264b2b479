// Confirms deleting a workspace. Deleting hides it from everyone; members lose access at once.
import { Modal, Typography } from "antd";
import type { WorkspaceRecord } from "../../lib/workspaces";

type Props = {
  workspace: WorkspaceRecord | null;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
};

export function DeleteWorkspaceDialog({ workspace, pending, onConfirm, onCancel }: Props) {
  return (
    <Modal
      open={workspace !== null}
      title="Delete Workspace"
      okText="Delete"
      cancelText="Cancel"
      okButtonProps={{ danger: true, loading: pending }}
      onOk={onConfirm}
      onCancel={onCancel}
      destroyOnHidden
    >
      <Typography.Paragraph>
        Are you sure you want to delete <Typography.Text strong>{workspace?.name}</Typography.Text>? Its
        members lose access immediately. Billing and usage history remain viewable.
      </Typography.Paragraph>
    </Modal>
  );
}
