// Create/edit dialog for a workspace: one required name, trimmed before it is sent. Create is
// disabled while the name is empty; Update also while it is unchanged (spec §5).
import type { UseModalFormReturnType } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Form, Input } from "antd";
import { canCreateWorkspace, canUpdateWorkspace, normalizeWorkspaceName } from "../../lib/workspaces";
import { FormModal } from "../form-modal";

export type WorkspaceFormValues = { name: string; organization_uuid: string };

type Props = {
  action: "create" | "edit";
  modal: UseModalFormReturnType<WorkspaceFormValues, HttpError, WorkspaceFormValues>;
  organizationUuid: string;
  originalName?: string;
};

export function WorkspaceFormModal({ action, modal, organizationUuid, originalName }: Props) {
  const { modalProps, formProps, form, formLoading } = modal;
  const name = Form.useWatch("name", form) as string | undefined;
  const enabled = action === "create" ? canCreateWorkspace(name) : canUpdateWorkspace(name, originalName);
  const id = `workspace-${action}-name`;

  return (
    <FormModal
      {...modalProps}
      width={480}
      title={action === "create" ? "Create Workspace" : "Edit Workspace"}
      okText={action === "create" ? "Create" : "Update"}
      okButtonProps={{ ...modalProps.okButtonProps, disabled: !enabled || formLoading, loading: formLoading }}
      destroyOnHidden={false}
    >
      <Form
        {...formProps}
        layout="vertical"
        onFinish={async (values) => {
          try {
            await formProps.onFinish?.({
              name: normalizeWorkspaceName(values.name),
              organization_uuid: organizationUuid,
            });
          } catch {
            // The error toast has told the user; the dialog stays open to correct the name.
          }
        }}
      >
        <Form.Item
          label="Workspace Name"
          name="name"
          htmlFor={id}
          rules={[{ required: true, whitespace: true, message: "Workspace name is required" }]}
        >
          <Input id={id} autoFocus maxLength={200} placeholder="e.g. Safety Research" />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
