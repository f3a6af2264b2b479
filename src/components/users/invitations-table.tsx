// Invitations sent and not yet accepted: who, as what, until when; administrators revoke them.
import { DeleteButton } from "@refinedev/antd";
import { Table, type TableProps, Tag } from "antd";
import { type ListQuery, QueryTable } from "../feedback/query-table";
import { exactTime, identityMessage, type PendingInvitation } from "./organization-user";
import { RowActions, USERS_COLUMN_WIDTH, usersTableMinWidth } from "./row-actions";

type Props = {
  tableProps: TableProps<PendingInvitation>;
  query: ListQuery;
  meta: Record<string, unknown>;
};

export function InvitationsTable({ tableProps, query, meta }: Props) {
  return (
    <QueryTable<PendingInvitation>
      query={query}
      failed="The invitations could not be loaded."
      errorText={identityMessage}
      empty="No pending invitations"
      {...tableProps}
      rowKey="email"
      size="middle"
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
            <DeleteButton
              size="small"
              resource="organization-invitations"
              recordItemId={invitation.email}
              meta={meta}
              aria-label={`Revoke the invitation of ${invitation.email}`}
              confirmTitle={`Revoke the invitation of ${invitation.email}?`}
              confirmOkText="Revoke"
              confirmCancelText="Cancel"
              successNotification={{
                type: "success",
                message: `${invitation.email} can no longer join with it.`,
                description: "Invitation revoked",
              }}
              errorNotification={(error) => ({
                type: "error",
                message: identityMessage(error),
                description: "Could not revoke the invitation",
              })}
            >
              Revoke
            </DeleteButton>
          </RowActions>
        )}
      />
    </QueryTable>
  );
}
