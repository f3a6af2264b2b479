// The organization's members: email, name, role and last active, paged by the identity service.
// Administrators get Change role and Remove on the members they may handle (the service says
// which: possible_roles and can_be_deleted); the buttons also ask `can` and hide for members.
import { DeleteButton, EditButton } from "@refinedev/antd";
import { Flex, Table, type TableProps, Tag, Tooltip, Typography } from "antd";
import { type ListQuery, QueryTable } from "../feedback/query-table";
import { identityMessage, lastActive, memberName, type OrganizationMember } from "./organization-user";
import { RowActions, USERS_COLUMN_WIDTH, usersTableMinWidth } from "./row-actions";

type Props = {
  tableProps: TableProps<OrganizationMember>;
  query: ListQuery;
  meta: Record<string, unknown>;
  /** Whether the signed-in user may manage members at all (adds the actions column). */
  manage: boolean;
  onChangeRole: (member: OrganizationMember) => void;
};

export function MembersTable({ tableProps, query, meta, manage, onChangeRole }: Props) {
  return (
    <QueryTable<OrganizationMember>
      query={query}
      failed="The users could not be loaded."
      errorText={identityMessage}
      empty="No users found"
      {...tableProps}
      rowKey="user_id"
      size="middle"
      tableLayout="fixed"
      scroll={{
        x: usersTableMinWidth(manage ? ["name", "role", "time", "actions"] : ["name", "role", "time"]),
      }}
    >
      <Table.Column<OrganizationMember> dataIndex="email" title="Email" />
      <Table.Column<OrganizationMember>
        key="name"
        title="Name"
        width={USERS_COLUMN_WIDTH.name}
        render={(_, member) => memberName(member)}
      />
      <Table.Column<OrganizationMember>
        dataIndex="role"
        title="Role"
        width={USERS_COLUMN_WIDTH.role}
        render={(role: string, member) => (
          <Flex gap={4} wrap>
            <Tag color={role === "Member" ? "default" : "blue"}>{role}</Tag>
            {member.is_enabled ? null : <Tag color="red">Disabled</Tag>}
          </Flex>
        )}
      />
      <Table.Column<OrganizationMember>
        dataIndex="last_active_at"
        title="Last active"
        width={USERS_COLUMN_WIDTH.time}
        render={(seconds: number) => {
          const when = lastActive(seconds);
          return (
            <Tooltip title={when.exact}>
              <Typography.Text>{when.relative}</Typography.Text>
            </Tooltip>
          );
        }}
      />
      {manage ? (
        <Table.Column<OrganizationMember>
          key="actions"
          title="Actions"
          align="right"
          width={USERS_COLUMN_WIDTH.actions}
          render={(_, member) => (
            <RowActions>
              {member.possible_roles.length > 0 ? (
                <EditButton
                  size="small"
                  resource="organization-users"
                  recordItemId={member.user_id}
                  aria-label={`Change role of ${member.email}`}
                  onClick={() => onChangeRole(member)}
                >
                  Change role
                </EditButton>
              ) : null}
              {member.can_be_deleted ? (
                <DeleteButton
                  size="small"
                  resource="organization-users"
                  recordItemId={member.user_id}
                  meta={meta}
                  aria-label={`Remove ${member.email}`}
                  confirmTitle={`Remove ${member.email} from the organization?`}
                  confirmOkText="Remove"
                  confirmCancelText="Cancel"
                  successNotification={{
                    type: "success",
                    message: `${member.email} can no longer use the organization.`,
                    description: "User removed",
                  }}
                  errorNotification={(error) => ({
                    type: "error",
                    message: identityMessage(error),
                    description: "Could not remove the user",
                  })}
                >
                  Remove
                </DeleteButton>
              ) : null}
            </RowActions>
          )}
        />
      ) : null}
    </QueryTable>
  );
}
