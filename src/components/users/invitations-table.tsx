// Invitations sent and not yet accepted: who, as what, until when; administrators revoke them.
import { Table, Tag } from "antd";
import { ListTable, type TableList } from "../table/list-table";
import { exactTime, identityMessage, type PendingInvitation } from "./organization-user";
import { RowActions, RowDeleteButton, USERS_COLUMN_WIDTH, usersTableMinWidth } from "./row-actions";

type Props = {
  list: TableList<PendingInvitation>;
  meta: Record<string, unknown>;
};

export function InvitationsTable({ list, meta }: Props) {
  return (
    <ListTable<PendingInvitation>
      list={list}
      failed="The invitations could not be loaded."
      errorText={identityMessage}
      empty="No pending invitations"
      tableLayout="fixed"
      scroll={{ x: usersTableMinWidth(["role", "time", "actions"]) }}
    >
      <Table.Column<PendingInvitation> dataIndex="email" title="Email" />
      <Table.Column<PendingInvitation>
        dataIndex="role"
        title="Role"
        width={USERS_COLUMN_WIDTH.role}
        render={(role: string) => <Tag color={role === "Member" ? "default" : "blue"}>{role}</Tag>}
      />
      <Table.Column<PendingInvitation>
        dataIndex="expires_at_seconds"
        title="Expires"
        width={USERS_COLUMN_WIDTH.time}
        render={(seconds: number) => exactTime(seconds)}
      />
      <Table.Column<PendingInvitation>
        key="actions"
        title="Actions"
        align="right"
        width={USERS_COLUMN_WIDTH.actions}
        render={(_, invitation) => (
          <RowActions>
            <RowDeleteButton
              resource="organization-invitations"
              id={invitation.email}
              meta={meta}
              verb="Revoke"
              ariaLabel={`Revoke the invitation of ${invitation.email}`}
              confirmTitle={`Revoke the invitation of ${invitation.email}?`}
              done={{
                heading: "Invitation revoked",
                message: `${invitation.email} can no longer join with it.`,
              }}
              failed="Could not revoke the invitation"
            />
          </RowActions>
        )}
      />
    </ListTable>
  );
}
