// The members of one workspace (calls name it in meta.workspaceId), shown on the workspace's page.
// A member is added by email (a query parameter) and removed by email.
import { ADMINS, type ConsoleResource, EVERYONE } from "./types";

export const workspaceMembers: ConsoleResource = {
  name: "workspace-members",
  meta: {
    label: "Workspace Members",
    hide: true,
    api: {
      path: "/v1/workspaces/{workspaceId}/members",
      idField: "email",
      calls: {
        create: { method: "POST", path: "/v1/workspaces/{workspaceId}/members", valuesInQuery: true },
      },
    },
    access: { list: EVERYONE, create: ADMINS, delete: ADMINS },
  },
};
