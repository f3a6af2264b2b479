// "/users": the organization's users on the identity service. Everyone sees the members (search
// by email, 10 a page); administrators also see pending invitations and may invite, change roles,
// remove members and revoke invitations. What each role may do comes from the resources' access
// (`can`), and the identity service has the last word: its refusals are shown in its own words.
import { CreateButton, useModalForm, useTable } from "@refinedev/antd";
import { type HttpError, useCan } from "@refinedev/core";
import { Card, Empty, Flex, Typography } from "antd";
import { useMemo, useState } from "react";
import { PageTitle } from "../../components/page-title";
import { FilterForm } from "../../components/table/filter-form";
import { SearchField } from "../../components/table/search-field";
import { useListTable } from "../../components/table/use-list-table";
import { ChangeRoleModal, type ChangeRoleValues } from "../../components/users/change-role-modal";
import { InvitationsTable } from "../../components/users/invitations-table";
import { InviteUserModal, type InviteValues } from "../../components/users/invite-user-modal";
import { MembersTable } from "../../components/users/members-table";
import {
  identityMessage,
  type OrganizationMember,
  type PendingInvitation,
  USERS_PAGE_SIZE,
} from "../../components/users/organization-user";
import { useCurrentUser } from "../../hooks/use-current-user";
import { filterText, searchFilter } from "../../lib/table-filters";

/** A form's values as Refine hands them to notifications: as sent (create) or with the id (edit). */
function submitted<T extends object>(values: T | { id: unknown; values: T } | undefined): Partial<T> {
  if (!values) return {};
  return "values" in values && "id" in values ? values.values : (values as T);
}

type SearchValues = { email?: string };

type UserAccess = {
  /** Whether every answer below has arrived (until then nothing is offered or ruled out). */
  known: boolean;
  manage: boolean;
  invitations: boolean;
  invite: boolean;
};

/** What the signed-in user may do here, from the resources' access (`can`). */
function useUserAccess(): UserAccess {
  const manage = useCan({ resource: "organization-users", action: "edit" }).data;
  const invitations = useCan({ resource: "organization-invitations", action: "list" }).data;
  const invite = useCan({ resource: "organization-invitations", action: "create" }).data;
  return {
    known: Boolean(manage && invitations && invite),
    manage: manage?.can === true,
    invitations: invitations?.can === true,
    invite: invite?.can === true,
  };
}

export function UsersPage() {
  const { data: user, isLoading } = useCurrentUser();
  const orgId = user?.organization?.org_uuid;
  const access = useUserAccess();
  return (
    <>
      <PageTitle
        title="Users"
        subtitle="Manage organization users and permissions"
        extra={orgId && access.invite ? <InviteButton orgId={orgId} /> : null}
      />
      {orgId ? (
        <OrganizationUsers orgId={orgId} access={access} />
      ) : isLoading ? (
        <Card loading />
      ) : (
        <Card>
          <Empty description="You are not a member of an organization." />
        </Card>
      )}
    </>
  );
}

function InviteButton({ orgId }: { orgId: string }) {
  const meta = useMemo(() => ({ orgId }), [orgId]);
  const invite = useModalForm<object, HttpError, InviteValues>({
    resource: "organization-invitations",
    action: "create",
    meta,
    redirect: false,
    warnWhenUnsavedChanges: false,
    successNotification: (_data, values) => {
      const sent = submitted(values);
      return {
        type: "success",
        message: `${sent.email} was invited as ${sent.role}.`,
        description: "Invitation sent",
      };
    },
    errorNotification: (error) => ({
      type: "error",
      message: identityMessage(error),
      description: "Could not send the invitation",
    }),
  });
  // The page shows this button only once `can` allowed the invitation (access.invite). The
  // button's own check would ask again and keep it hidden a moment longer: on a narrow screen it
  // would then wrap under the title and push the page down after the members card has shown.
  return (
    <>
      <CreateButton
        resource="organization-invitations"
        accessControl={{ enabled: false }}
        onClick={() => invite.show()}
      >
        Invite user
      </CreateButton>
      <InviteUserModal modal={invite} />
    </>
  );
}

function OrganizationUsers({ orgId, access }: { orgId: string; access: UserAccess }) {
  const meta = useMemo(() => ({ orgId }), [orgId]);

  // Page and search are Refine's, kept in the URL; a changed search starts at the first page.
  const members = useListTable<OrganizationMember, SearchValues>({
    resource: "organization-users",
    meta,
    pageSize: USERS_PAGE_SIZE,
    onSearch: (values) => [searchFilter("email", values.email)],
  });

  const [changing, setChanging] = useState<OrganizationMember | null>(null);
  const changeRole = useModalForm<object, HttpError, ChangeRoleValues>({
    resource: "organization-users",
    action: "edit",
    meta,
    redirect: false,
    warnWhenUnsavedChanges: false,
    // There is no one-member call: the form starts from the row, not from a fetch.
    queryOptions: { enabled: false },
    successNotification: (_data, values) => ({
      type: "success",
      message: `${changing?.email} is now ${submitted(values).role}.`,
      description: "Role changed",
    }),
    errorNotification: (error) => ({
      type: "error",
      message: identityMessage(error),
      description: "Could not change the role",
    }),
  });
  const openChangeRole = (member: OrganizationMember) => {
    setChanging(member);
    changeRole.show(member.user_id);
    changeRole.formProps.form?.setFieldsValue({ role: member.role });
  };

  // Until the page knows what the user may do, the members card would still change shape (the
  // read-only note, the actions column): a placeholder holds its place meanwhile. The list is
  // already being fetched.
  if (!access.known) return <Card loading />;
  return (
    <Flex vertical gap={24}>
      <Card title="Members">
        {/* The search applies 300 ms after the last keystroke. */}
        <FilterForm<SearchValues>
          searchFormProps={members.searchFormProps}
          initialValues={{ email: filterText(members.filters, "email") }}
          label="User search"
          style={{ marginBottom: 16 }}
        >
          <SearchField name="email" label="Search users by email" placeholder="Search by email" />
        </FilterForm>
        {access.known && !access.manage && !access.invite ? (
          <Typography.Paragraph type="secondary">
            Only administrators can invite, change roles or remove users.
          </Typography.Paragraph>
        ) : null}
        <MembersTable list={members} meta={meta} manage={access.manage} onChangeRole={openChangeRole} />
      </Card>
      {access.invitations ? <PendingInvitations meta={meta} placed={members.tableQuery.isFetched} /> : null}
      <ChangeRoleModal modal={changeRole} member={changing} />
    </Flex>
  );
}

/**
 * The pending invitations, fetched at once but shown only from the members' first answer on: above
 * it, the members table takes its height then, and would otherwise push this card down the page.
 */
function PendingInvitations({ meta, placed }: { meta: { orgId: string }; placed: boolean }) {
  const invitations = useTable<PendingInvitation, HttpError>({
    resource: "organization-invitations",
    meta,
    // Out of the URL: the members table owns this page's address, two tables would share its keys.
    syncWithLocation: false,
    pagination: { pageSize: USERS_PAGE_SIZE, mode: "server" },
    sorters: { mode: "off" },
    errorNotification: false,
  });
  if (!placed) return null;
  return (
    <Card title="Pending invitations">
      <InvitationsTable list={invitations} meta={meta} />
    </Card>
  );
}
