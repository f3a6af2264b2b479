// Invite someone by email as a role; the identity service emails them a link to accept.
import type { UseModalFormReturnType } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Form, Input, Select } from "antd";
import { FormModal } from "../form-modal";
import { INVITE_ROLES } from "./organization-user";

export type InviteValues = { email: string; role: string };

export function InviteUserModal({
  modal,
}: {
  modal: UseModalFormReturnType<object, HttpError, InviteValues>;
}) {
  return (
    <FormModal {...modal.modalProps} title="Invite user" width={480} okText="Send invitation">
      <Form
        {...modal.formProps}
        name="invite-user"
        layout="vertical"
        initialValues={{ role: "Member" }}
        onFinish={async (values) => {
          try {
            await modal.formProps.onFinish?.(values);
          } catch {
            // The toast has told the user in the identity service's words; the dialog stays open.
          }
        }}
      >
        <Form.Item
          name="email"
          label="Email"
          rules={[
            { required: true, message: "Please enter an email address." },
            { type: "email", message: "Please enter a valid email address." },
          ]}
        >
          <Input autoComplete="off" placeholder="name@example.com" />
        </Form.Item>
        <Form.Item name="role" label="Role" rules={[{ required: true, message: "Please choose a role." }]}>
          <Select options={INVITE_ROLES.map((role) => ({ value: role, label: role }))} />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
