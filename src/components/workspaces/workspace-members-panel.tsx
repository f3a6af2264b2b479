// "Workspace Members": the members of one workspace. Those who may add and remove members
// (administrators, by the workspace-members declaration) pick organization users who are not
// members yet and remove members; everyone else only reads the list.
import { UserAddOutlined } from "@ant-design/icons";
import { DeleteButton, useSelect, useTable } from "@refinedev/antd";
import { CanAccess, type HttpError, useCan, useCreate, useInvalidate } from "@refinedev/core";
import { Button, Card, Flex, Select, Tag } from "antd";
import { useMemo, useState } from "react";
import {
  memberCandidates,
  memberRoleLabel,
  type OrganizationUser,
  WORKSPACE_STALE_MS,
  type WorkspaceMember,
} from "../../lib/workspaces";
import { workspaceMemberCandidates } from "../../resources/workspace-member-candidates";
import { workspaceMembers as resource } from "../../resources/workspace-members";
import { workspaces } from "../../resources/workspaces";
import { ListTable } from "../table/list-table";
import { failureToast } from "./notifications";

type Props = { workspaceId: string };

export function WorkspaceMembersPanel({ workspaceId }: Props) {
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const meta = useMemo(() => ({ workspaceId }), [workspaceId]);
  const invalidate = useInvalidate();
  const { data: mayAdd } = useCan({ resource: resource.name, action: "create" });
  const { data: mayRemove } = useCan({ resource: resource.name, action: "delete" });

  const table = useTable<WorkspaceMember, HttpError>({
    resource: resource.name,
    meta,
    pagination: { mode: "off" },
    sorters: { mode: "off" },
    filters: { mode: "off" },
    queryOptions: { staleTime: WORKSPACE_STALE_MS },
  });
  const members = table.tableQuery.data?.data;

  // The organization's users, searched in the browser; members are left out of the options.
  const { query: candidatesQuery } = useSelect<OrganizationUser, HttpError>({
    resource: workspaceMemberCandidates.name,
    optionLabel: "email",
    optionValue: "email",
    pagination: { mode: "off" },
    queryOptions: { enabled: mayAdd?.can === true, staleTime: WORKSPACE_STALE_MS },
  });
  const candidates = memberCandidates(candidatesQuery.data?.data, members);

  const { mutate: addMember, mutation: adding } = useCreate();
  // The workspace list shows member counts.
  const refreshCounts = () => invalidate({ resource: workspaces.name, invalidates: ["list", "detail"] });

  const add = () => {
    if (!chosen) return;
    addMember(
      {
        resource: resource.name,
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

  return (
    <Card title="Workspace Members">
      <CanAccess resource={resource.name} action="create">
        <Flex gap={8} wrap style={{ marginBottom: 16 }}>
          <Select
            aria-label="User to add"
            placeholder="Select a user to add"
            style={{ minWidth: 280, flex: 1, maxWidth: 420 }}
            value={chosen}
            onChange={(value) => setChosen(value)}
            allowClear
            showSearch
            // The search runs over the loaded users (the endpoint has no search parameter).
            loading={candidatesQuery.isLoading}
            filterOption
            optionFilterProp="label"
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
      </CanAccess>
      <ListTable<WorkspaceMember>
        list={table}
        failed="Members could not be loaded."
        empty="No members yet"
        columns={[
          { title: "Email", dataIndex: "email", key: "email" },
          {
            title: "Role",
            dataIndex: "role",
            key: "role",
            render: (role: string | null | undefined) => <Tag>{memberRoleLabel(role)}</Tag>,
          },
          ...(mayRemove?.can
            ? [
                {
                  title: "Actions",
                  key: "actions",
                  width: 120,
                  render: (_: unknown, member: WorkspaceMember) => (
                    <DeleteButton
                      resource={resource.name}
                      recordItemId={member.email}
                      meta={meta}
                      type="text"
                      aria-label={`Remove ${member.email}`}
                      confirmTitle={`Remove ${member.email} from this workspace?`}
                      confirmOkText="Remove"
                      confirmCancelText="Cancel"
                      successNotification={false}
                      errorNotification={failureToast("Failed to remove member. Please try again.")}
                      onSuccess={refreshCounts}
                    >
                      Remove
                    </DeleteButton>
                  ),
                },
              ]
            : []),
        ]}
      />
    </Card>
  );
}
