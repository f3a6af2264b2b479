// The dialog of one of Refine's modal forms (useModalForm), mounted when it first opens. Refine has
// antd render a form dialog's content from the start (forceRender), so a list page built the forms
// of all its closed dialogs, hidden, in its first render, and an autofocused field pulled the focus
// into a hidden dialog, laying the page out once more. antd renders the content on the first
// opening instead, then keeps or destroys it on closing as `destroyOnHidden` says. Values set before
// it mounts (form.setFieldsValue as it opens) wait in the form's store, which the form reads as it
// mounts.
//
// Once open, the cursor is in the form's first field, so that a keyboard user types at once: rc-dialog
// moves the focus to its own box as it opens (its focus trap), after the field's autoFocus has run.
import { Modal, type ModalProps } from "antd";
import { useRef } from "react";
import { useOpenedOnce } from "../hooks/use-opened-once";

/** The fields a dialog's form may start in: text, numbers, selects (their search input), choices. */
const FIELD = "input:not([type=hidden]):not([disabled]), textarea:not([disabled])";

export function FormModal({ afterOpenChange, children, ...props }: ModalProps) {
  const body = useRef<HTMLDivElement>(null);
  const opened = useOpenedOnce(props.open);
  const openChanged = (open: boolean) => {
    const form = body.current;
    // A field the user has already reached (a click during the opening) keeps the focus.
    if (open && form && !form.contains(document.activeElement))
      form.querySelector<HTMLElement>(FIELD)?.focus();
    afterOpenChange?.(open);
  };
  if (!opened) return null;
  return (
    <Modal {...props} forceRender={false} afterOpenChange={openChanged}>
      <div ref={body}>{children}</div>
    </Modal>
  );
}
