// Logging out is confirmed first (spec §2); confirming ends the session and the identity service
// sends the browser to its login page.
import { useLogout } from "@refinedev/core";
import { Typography } from "antd";
import { useOpenedOnce } from "../../hooks/use-opened-once";
import { DangerConfirmDialog } from "../danger-confirm-dialog";

type Props = { open: boolean; onClose: () => void };

/** In every page's sider: its logout hook runs once the dialog first opens. */
export function LogoutDialog(props: Props) {
  return useOpenedOnce(props.open) ? <LogoutConfirm {...props} /> : null;
}

function LogoutConfirm({ open, onClose }: Props) {
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
