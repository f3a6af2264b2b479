// The dialog of a secret shown once (a new API key, an ingestion key, a webhook signing secret): it
// is open while the caller holds the secret and closes only by Done or the close button, never by
// a click beside it, so the secret is not lost by accident; its content is dropped on close so the
// secret leaves the page. The caller draws the secret's fields and warning; they stack 16px apart.
import { Button, Flex, Modal } from "antd";
import type { ReactNode } from "react";

type Props<T> = {
  secret: T | null;
  title: string;
  onClose: () => void;
  children: (secret: T) => ReactNode;
};

export function ShownOnceDialog<T>({ secret, title, onClose, children }: Props<T>) {
  return (
    <Modal
      open={secret !== null}
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
      {secret !== null ? (
        <Flex vertical gap={16}>
          {children(secret)}
        </Flex>
      ) : null}
    </Modal>
  );
}
