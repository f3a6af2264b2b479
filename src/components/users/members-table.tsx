// The organization's members: email, name, role and last active, paged by the identity service.
// Administrators get Change role and Remove on the members they may handle (the service says
// which: possible_roles and can_be_deleted); the buttons also ask `can` and hide for members.
import { EditButton } from "@refinedev/antd";
import { Flex, Table, Tag, Tooltip, Typography } from "antd";
import { ListTable, type TableList } from "../table/list-table";
import { identityMessage, lastActive, memberName, type OrganizationMember } from "./organization-user";
import { RowActions, RowDeleteButton, USERS_COLUMN_WIDTH, usersTableMinWidth } from "./row-actions";

type Props = {
  list: TableList<OrganizationMember>;
  meta: Record<string, unknown>;
  /** Whether the signed-in user may manage members at all (adds the actions column). */
  manage: boolean;
  onChangeRole: (member: OrganizationMember) => void;
};

export function MembersTable({ list, meta, manage, onChangeRole }: Props) {
  return (
    <ListTable<OrganizationMember>
      list={list}
      failed="The users could not be loaded."
      errorText={identityMessage}
      empty="No users found"
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
                <RowDeleteButton
                  resource="organization-users"
                  id={member.user_id}
                  meta={meta}
                  verb="Remove"
                  ariaLabel={`Remove ${member.email}`}
                  confirmTitle={`Remove ${member.email} from the organization?`}
                  done={{
                    heading: "User removed",
                    message: `${member.email} can no longer use the organization.`,
                  }}
                  failed="Could not remove the user"
                />
              ) : null}
            </RowActions>
          )}
        />
      ) : null}
    </ListTable>
  );
}
