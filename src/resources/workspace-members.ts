// The members of one workspace (calls name it in meta.workspaceId), shown on the workspace's page.
// A member is added by email (a query parameter) and removed by email.
import { allow, hiddenResource } from "./define";
import { ADMINS, EVERYONE } from "./types";

export const workspaceMembers = hiddenResource(
  "workspace-members",
  "Workspace Members",
  {
    path: "/v1/workspaces/{workspaceId}/members",
    idField: "email",
    calls: { create: { method: "POST", path: "/v1/workspaces/{workspaceId}/members", valuesInQuery: true } },
  },
  { list: EVERYONE, ...allow(ADMINS, "create", "delete") },
);
