// The dialog of one of Refine's modal forms (useModalForm), mounted when it first opens. Refine has
// antd render a form dialog's content from the start (forceRender), so a list page built the forms
// of all its closed dialogs, hidden, in its first render, and an autofocused field pulled the focus
// into a hidden dialog, laying the page out once more. antd renders the content on the first
// opening instead, then keeps or destroys it on closing as `destroyOnHidden` says. Values set before
// it mounts (form.setFieldsValue as it opens) wait in the form's store, which the form reads as it
// mounts.
import { Modal, type ModalProps } from "antd";

export function FormModal(props: ModalProps) {
  return <Modal {...props} forceRender={false} />;
}
