// "/organization/workspaces": the organization's workspaces as cards. Administrators create,
// rename and delete them; members only see them. Who may do what comes from the access-control
// provider (the workspaces resource's declaration): the buttons hide themselves.
import { PlusOutlined } from "@ant-design/icons";
import { useModalForm } from "@refinedev/antd";
import { CanAccess, type HttpError, useList } from "@refinedev/core";
import { Alert, Col, Empty, Row, Spin, Typography } from "antd";
import { useState } from "react";
import { DangerConfirmDialog } from "../../components/danger-confirm-dialog";
import { PageList } from "../../components/layout/page-list";
import { ResourceCreateButton } from "../../components/table/list-actions";
import { failureToast } from "../../components/workspaces/notifications";
import { WorkspaceCard } from "../../components/workspaces/workspace-card";
import {
  WorkspaceFormModal,
  type WorkspaceFormValues,
} from "../../components/workspaces/workspace-form-modal";
import { useConfirmedDelete } from "../../hooks/use-confirmed-delete";
import { useCurrentUser } from "../../hooks/use-current-user";
import { isCurrentWorkspace, WORKSPACE_STALE_MS, type WorkspaceRecord } from "../../lib/workspaces";
import { workspaces as resource } from "../../resources/workspaces";

const formDefaults = {
  resource: resource.name,
  redirect: false,
  successNotification: false,
} as const;

export function WorkspaceListPage() {
  const { data: user } = useCurrentUser();
  const [editing, setEditing] = useState<WorkspaceRecord | null>(null);

  const { result, query } = useList<WorkspaceRecord, HttpError>({
    resource: resource.name,
    pagination: { mode: "off" },
    queryOptions: { staleTime: WORKSPACE_STALE_MS },
  });
  const workspaces = result.data ?? [];

  const createModal = useModalForm<WorkspaceFormValues, HttpError, WorkspaceFormValues>({
    ...formDefaults,
    action: "create",
    errorNotification: failureToast("Failed to create workspace. Please try again."),
  });
  const editModal = useModalForm<WorkspaceFormValues, HttpError, WorkspaceFormValues>({
    ...formDefaults,
    action: "edit",
    errorNotification: failureToast("Failed to update workspace. Please try again."),
    queryOptions: { staleTime: WORKSPACE_STALE_MS },
  });
  const deletion = useConfirmedDelete<WorkspaceRecord>({
    resource: resource.name,
    id: (workspace) => workspace.workspace_uuid,
    errorNotification: failureToast("Failed to delete workspace. Please try again."),
    stayOnError: true,
  });

  const openEdit = (workspace: WorkspaceRecord) => {
    setEditing(workspace);
    editModal.show(workspace.workspace_uuid);
  };
  const createButton = (label: string) => (
    <ResourceCreateButton
      resource={resource.name}
      icon={<PlusOutlined />}
      label={label}
      onCreate={() => createModal.show()}
    />
  );

  let body: React.ReactNode;
  if (query.isLoading) {
    body = (
      <Spin tip="Loading...">
        <div style={{ minHeight: 120 }} />
      </Spin>
    );
  } else if (query.isError) {
    body = (
      <Alert
        type="error"
        showIcon
        message="Workspaces could not be loaded."
        description={query.error?.message}
      />
    );
  } else if (workspaces.length === 0) {
    body = <Empty description="No workspaces yet">{createButton("Create Your First Workspace")}</Empty>;
  } else {
    body = (
      <Row gutter={[16, 16]}>
        {workspaces.map((workspace) => (
          <Col key={workspace.workspace_uuid} xs={24} md={12} xl={8}>
            <WorkspaceCard
              workspace={workspace}
              isCurrent={isCurrentWorkspace(workspace, user?.workspace)}
              onEdit={openEdit}
              onDelete={deletion.ask}
            />
          </Col>
        ))}
      </Row>
    );
  }

  return (
    <PageList
      resource={resource.name}
      title="Manage Workspaces"
      headerButtons={workspaces.length > 0 ? createButton("Create Workspace") : null}
      headerProps={{ style: { padding: 0, marginBottom: 8 } }}
    >
      {body}
      <CanAccess resource={resource.name} action="create">
        <WorkspaceFormModal
          action="create"
          modal={createModal}
          organizationUuid={user?.organization?.org_uuid ?? ""}
        />
      </CanAccess>
      <CanAccess resource={resource.name} action="edit">
        <WorkspaceFormModal
          action="edit"
          modal={editModal}
          organizationUuid={editing?.organization_uuid ?? user?.organization?.org_uuid ?? ""}
          originalName={editModal.query?.data?.data?.name ?? editing?.name}
        />
      </CanAccess>
      <CanAccess resource={resource.name} action="delete">
        <DangerConfirmDialog title="Delete Workspace" okText="Delete" {...deletion.dialog}>
          <Typography.Paragraph>
            Are you sure you want to delete <Typography.Text strong>{deletion.target?.name}</Typography.Text>?
            Its members lose access immediately. Billing and usage history remain viewable.
          </Typography.Paragraph>
        </DangerConfirmDialog>
      </CanAccess>
    </PageList>
  );
}
