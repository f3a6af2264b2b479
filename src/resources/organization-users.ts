// The organization's users, kept by the identity service (/api/fe/v3): its members, and the
// invitations still waiting to be accepted. Every call names the organization ({orgId}: the page
// passes the signed-in user's active organization). Everyone sees the members; administrators
// invite, change roles, remove members and revoke invitations. Lists page from 0 and search by
// `email_search`; the changes are POSTs naming the organization and the user in their body.
import { TeamOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { USERS_PAGE_SIZE } from "../lib/page-sizes";
import { ADMINS, type ConsoleResource, EVERYONE, type ListApi } from "./types";

const identityList = (rows: string): ListApi => ({
  rows,
  total: "total_count",
  paging: { page: "page_number", pageSize: "page_size", firstPage: 0 },
  filterParams: { email: "email_search" },
});

export const organizationUsers: ConsoleResource = {
  name: "organization-users",
  list: "/users",
  meta: {
    label: "Users",
    icon: createElement(TeamOutlined),
    dataProviderName: "identity",
    api: {
      path: "/org_membership/{orgId}/members",
      idField: "user_id",
      list: identityList("users"),
      calls: {
        update: { method: "POST", path: "/change_role", body: { org_id: "{orgId}", user_id: "{id}" } },
        delete: { method: "POST", path: "/remove_user", body: { org_id: "{orgId}", user_id: "{id}" } },
      },
    },
    access: { list: EVERYONE, edit: ADMINS, delete: ADMINS },
  },
  firstList: {
    pageSize: USERS_PAGE_SIZE,
    meta: (user) => (user.organization ? { orgId: user.organization.org_uuid } : undefined),
  },
  pages: { list: () => import("../pages/users/users-page").then((m) => m.UsersPage) },
};

/** Pending invitations, shown on the Users page; an invitation is known by its email. */
export const organizationInvitations: ConsoleResource = {
  name: "organization-invitations",
  meta: {
    label: "Invitations",
    hide: true,
    dataProviderName: "identity",
    api: {
      path: "/org_membership/{orgId}/pending_invites",
      idField: "email",
      list: identityList("pending_invites"),
      calls: {
        create: { method: "POST", path: "/invite_user", body: { org_id: "{orgId}" } },
        delete: {
          method: "POST",
          path: "/revoke_user_invitation",
          body: { org_id: "{orgId}", email: "{id}" },
        },
      },
    },
    access: { list: ADMINS, create: ADMINS, delete: ADMINS },
  },
};
