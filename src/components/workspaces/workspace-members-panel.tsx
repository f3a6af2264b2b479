// "Workspace Members": the members of one workspace. Administrators add organization users who
// are not members yet and remove members; everyone else only reads the list.
import { DeleteOutlined, UserAddOutlined } from "@ant-design/icons";
import { type HttpError, useCreate, useDelete, useInvalidate, useList } from "@refinedev/core";
import { Alert, Button, Card, Flex, Popconfirm, Select, Table, Tag } from "antd";
import { useState } from "react";
import {
  memberCandidates,
  memberRoleLabel,
  type OrganizationUser,
  WORKSPACE_STALE_MS,
  type WorkspaceMember,
} from "../../lib/workspaces";
import { failureToast } from "./notifications";

type Props = { workspaceId: string; isAdmin: boolean };

export function WorkspaceMembersPanel({ workspaceId, isAdmin }: Props) {
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const meta = { workspaceId };
  const invalidate = useInvalidate();

  const members = useList<WorkspaceMember, HttpError>({
    resource: "workspace-members",
    meta,
    pagination: { mode: "off" },
    queryOptions: { staleTime: WORKSPACE_STALE_MS },
  });
  const organizationUsers = useList<OrganizationUser, HttpError>({
    resource: "users",
    pagination: { mode: "off" },
    queryOptions: { enabled: isAdmin, staleTime: WORKSPACE_STALE_MS },
  });
  const candidates = memberCandidates(organizationUsers.result.data, members.result.data);

  const { mutate: addMember, mutation: adding } = useCreate();
  const { mutate: removeMember, mutation: removing } = useDelete();
  // The workspace list shows member counts.
  const refreshCounts = () => invalidate({ resource: "workspaces", invalidates: ["list", "detail"] });

  const add = () => {
    if (!chosen) return;
    addMember(
      {
        resource: "workspace-members",
        meta,
        values: { user_email: chosen },
        successNotification: false,
        errorNotification: failureToast("Failed to add member. Please try again."),
      },
      {
        onSuccess: () => {
          setChosen(undefined);
          refreshCounts();
        },
      },
    );
  };
  const remove = (email: string) =>
    removeMember(
      {
        resource: "workspace-members",
        meta,
        id: email,
        successNotification: false,
        errorNotification: failureToast("Failed to remove member. Please try again."),
      },
      { onSuccess: refreshCounts },
    );

  return (
    <Card title="Workspace Members">
      {isAdmin ? (
        <Flex gap={8} wrap style={{ marginBottom: 16 }}>
          <Select
            aria-label="User to add"
            placeholder="Select a user to add"
            style={{ minWidth: 280, flex: 1, maxWidth: 420 }}
            value={chosen}
            onChange={setChosen}
            allowClear
            showSearch
            loading={organizationUsers.query.isLoading}
            notFoundContent="No users to add"
            options={candidates.map((user) => ({ value: user.email, label: user.email }))}
          />
          <Button
            type="primary"
            icon={<UserAddOutlined />}
            disabled={!chosen}
            loading={adding.isPending}
            onClick={add}
          >
            Add Member
          </Button>
        </Flex>
      ) : null}
      {members.query.isError ? (
        <Alert
          type="error"
          showIcon
          message="Members could not be loaded."
          description={members.query.error?.message}
        />
      ) : (
        <Table<WorkspaceMember>
          rowKey="email"
          size="middle"
          loading={members.query.isLoading}
          dataSource={members.result.data ?? []}
          pagination={false}
          locale={{ emptyText: "No members yet" }}
          columns={[
            { title: "Email", dataIndex: "email", key: "email" },
            {
              title: "Role",
              dataIndex: "role",
              key: "role",
              render: (role: string | null | undefined) => <Tag>{memberRoleLabel(role)}</Tag>,
            },
            ...(isAdmin
              ? [
                  {
                    title: "Actions",
                    key: "actions",
                    width: 120,
                    render: (_: unknown, member: WorkspaceMember) => (
                      <Popconfirm
                        title="Remove member"
                        description={`Remove ${member.email} from this workspace?`}
                        okText="Remove"
                        cancelText="Cancel"
                        okButtonProps={{ danger: true, loading: removing.isPending }}
                        onConfirm={() => remove(member.email)}
                      >
                        <Button
                          danger
                          type="text"
                          icon={<DeleteOutlined />}
                          aria-label={`Remove ${member.email}`}
                        >
                          Remove
                        </Button>
                      </Popconfirm>
                    ),
                  },
                ]
              : []),
          ]}
        />
      )}
    </Card>
  );
}
