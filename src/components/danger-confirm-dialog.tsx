// The console's one "are you sure?" dialog for an action that cannot be undone (delete, revoke):
// a danger OK button that shows the call in flight, Cancel, and the API's refusal inside the dialog.
import { Alert, Modal } from "antd";
import type { ReactNode } from "react";
import { useOpenedOnce } from "../hooks/use-opened-once";

type Props = {
  open: boolean;
  title: string;
  okText: string;
  pending: boolean;
  /** The API's refusal of the last attempt. */
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
  children: ReactNode;
};

export function DangerConfirmDialog({
  open,
  title,
  okText,
  pending,
  error,
  onConfirm,
  onCancel,
  children,
}: Props) {
  // Never opened: nothing to render (a page holds several of these closed).
  if (!useOpenedOnce(open)) return null;
  return (
    <Modal
      open={open}
      title={title}
      okText={okText}
      cancelText="Cancel"
      okButtonProps={{ danger: true, loading: pending }}
      onOk={onConfirm}
      onCancel={onCancel}
      destroyOnHidden
    >
      {children}
      {error ? <Alert type="error" showIcon role="alert" message={error} /> : null}
    </Modal>
  );
}
