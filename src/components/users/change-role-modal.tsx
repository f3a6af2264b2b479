// Give a member another role, among those the identity service says the signed-in user may give.
import type { UseModalFormReturnType } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Form, Select, Typography } from "antd";
import { FormModal } from "../form-modal";
import type { OrganizationMember } from "./organization-user";

export type ChangeRoleValues = { role: string };

type Props = {
  modal: UseModalFormReturnType<object, HttpError, ChangeRoleValues>;
  member: OrganizationMember | null;
};

export function ChangeRoleModal({ modal, member }: Props) {
  return (
    <FormModal {...modal.modalProps} title="Change role" width={480} okText="Save role">
      <Typography.Paragraph>{member?.email}</Typography.Paragraph>
      <Form
        {...modal.formProps}
        name="change-role"
        layout="vertical"
        onFinish={async (values) => {
          try {
            await modal.formProps.onFinish?.(values);
          } catch {
            // The toast has told the user in the identity service's words; the dialog stays open.
          }
        }}
      >
        <Form.Item name="role" label="Role" rules={[{ required: true, message: "Please choose a role." }]}>
          <Select options={(member?.possible_roles ?? []).map((role) => ({ value: role, label: role }))} />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
