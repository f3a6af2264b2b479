// The organization's users as the product API lists them: the people an administrator may add to
// a workspace (the workspace page leaves out those already in it).
import { allow, hiddenResource } from "./define";
import { ADMINS } from "./types";

export const workspaceMemberCandidates = hiddenResource(
  "workspace-member-candidates",
  "Organization Users",
  { path: "/v1/accounts/organization/users", idField: "email" },
  allow(ADMINS, "list"),
);
