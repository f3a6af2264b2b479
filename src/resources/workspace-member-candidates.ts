// The organization's users as the product API lists them: the people an administrator may add to
// a workspace (the workspace page leaves out those already in it).
import { ADMINS, type ConsoleResource } from "./types";

export const workspaceMemberCandidates: ConsoleResource = {
  name: "workspace-member-candidates",
  meta: {
    label: "Organization Users",
    hide: true,
    api: { path: "/v1/accounts/organization/users", idField: "email" },
    access: { list: ADMINS },
  },
};
