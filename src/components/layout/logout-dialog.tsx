// Logging out is confirmed first (spec §2); confirming ends the session and the identity service
// sends the browser to its login page.
import { useLogout } from "@refinedev/core";
import { Modal, Typography } from "antd";

type Props = { open: boolean; onClose: () => void };

export function LogoutDialog({ open, onClose }: Props) {
  const { mutate: logout, isPending } = useLogout();
  return (
    <Modal
      open={open}
      title="Confirm Logout"
      okText="Logout"
      cancelText="Cancel"
      okButtonProps={{ danger: true, loading: isPending }}
      onOk={() => logout()}
      onCancel={onClose}
      destroyOnHidden
    >
      <Typography.Paragraph>
        Are you sure you want to logout? You will need to sign in again to access your account.
      </Typography.Paragraph>
    </Modal>
  );
}
