// Every console resource in one list: Refine's routing/menu metadata and the sider read it.
// meta.label is set explicitly so Refine does not derive (and pluralise) labels from names.
import {
  AppstoreOutlined,
  DollarOutlined,
  KeyOutlined,
  SettingOutlined,
  TeamOutlined,
} from "@ant-design/icons";
import type { ResourceProps } from "@refinedev/core";
import { createElement } from "react";

export type ConsoleResourceMeta = {
  label: string;
  icon: ReturnType<typeof createElement>;
  /** Only administrators may see and open it (see lib/resource-access). */
  adminOnly?: boolean;
  /** Product API path when it differs from /v1/{name}. */
  apiPath?: string;
};

export type ConsoleResource = ResourceProps & { list: string; meta: ConsoleResourceMeta };

export const resources: ConsoleResource[] = [
  {
    name: "billing",
    list: "/",
    meta: { label: "Billing & Usage", icon: createElement(DollarOutlined), adminOnly: true },
  },
  {
    name: "workspaces",
    list: "/organization/workspaces",
    show: "/workspace/:id",
    meta: { label: "Workspaces", icon: createElement(AppstoreOutlined), apiPath: "/v1/workspaces/" },
  },
  {
    name: "users",
    list: "/users",
    meta: { label: "Users", icon: createElement(TeamOutlined), apiPath: "/v1/accounts/organization/users" },
  },
  {
    name: "api-keys",
    list: "/account/api-keys",
    meta: { label: "Personal API Keys", icon: createElement(KeyOutlined) },
  },
  {
    name: "account-settings",
    list: "/account/settings",
    meta: { label: "Account Settings", icon: createElement(SettingOutlined) },
  },
];

export function resourceMetaByName(name: string): ConsoleResourceMeta | undefined {
  return resources.find((r) => r.name === name)?.meta;
}

/** Route patterns a resource owns, for highlighting its sider entry. */
export function resourceRoutes(resource: ConsoleResource): string[] {
  return [resource.list, resource.show, resource.create, resource.edit].filter(
    (route): route is string => typeof route === "string",
  );
}
