// Logging out is confirmed first (spec §2); confirming ends the session and the identity service
// sends the browser to its login page.
import { useLogout } from "@refinedev/core";
import { Typography } from "antd";
import { DangerConfirmDialog } from "../danger-confirm-dialog";

type Props = { open: boolean; onClose: () => void };

export function LogoutDialog({ open, onClose }: Props) {
  const { mutate: logout, isPending } = useLogout();
  return (
    <DangerConfirmDialog
      open={open}
      title="Confirm Logout"
      okText="Logout"
      pending={isPending}
      onConfirm={() => logout()}
      onCancel={onClose}
    >
      <Typography.Paragraph>
        Are you sure you want to logout? You will need to sign in again to access your account.
      </Typography.Paragraph>
    </DangerConfirmDialog>
  );
}
