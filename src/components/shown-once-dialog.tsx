// The dialog of a secret shown once (a new API key, a webhook signing secret): it closes only by
// Done or the close button, never by a click beside it, so the secret is not lost by accident,
// and its content is dropped on close so the secret leaves the page.
import { Button, Modal } from "antd";
import type { ReactNode } from "react";

type Props = { open: boolean; title: string; onClose: () => void; children: ReactNode };

export function ShownOnceDialog({ open, title, onClose, children }: Props) {
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onClose}
      maskClosable={false}
      destroyOnHidden
      footer={
        <Button type="primary" onClick={onClose}>
          Done
        </Button>
      }
    >
      {children}
    </Modal>
  );
}
