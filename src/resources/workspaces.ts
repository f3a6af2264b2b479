// The organization's workspaces: everyone lists and opens the ones they may see (the API answers
// 404 for a member's non-workspace); administrators create, rename and delete them.
import { AppstoreOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { ADMINS, type ConsoleResource, EVERYONE } from "./types";

export const workspaces: ConsoleResource = {
  name: "workspaces",
  list: "/organization/workspaces",
  show: "/workspace/:id",
  meta: {
    label: "Workspaces",
    icon: createElement(AppstoreOutlined),
    api: { path: "/v1/workspaces/", itemPath: "/v1/workspaces/{id}", idField: "workspace_uuid" },
    access: { list: EVERYONE, show: EVERYONE, create: ADMINS, edit: ADMINS, delete: ADMINS },
  },
  pages: {
    list: () => import("../pages/workspaces/workspace-list-page").then((m) => m.WorkspaceListPage),
    show: () => import("../pages/workspaces/workspace-show-page").then((m) => m.WorkspaceShowPage),
  },
};
