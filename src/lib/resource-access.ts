// One rule decides who may do what with a resource: its declaration's `access` map and the
// user's role. The access-control provider (routes, buttons, useCan) and the sider both use it, so
// a hidden menu entry and a refused route can never disagree. The product API enforces the same
// rules; this only shapes the console.
import type { ConsoleResource, ResourceAction, Role } from "../resources/types";

export function roleOf(user: { is_admin: boolean } | null | undefined): Role | null {
  if (!user) return null;
  return user.is_admin ? "admin" : "member";
}

export function allows(
  resource: Pick<ConsoleResource, "meta"> | undefined,
  action: string,
  user: { is_admin: boolean } | null | undefined,
): boolean {
  const role = roleOf(user);
  const roles = resource?.meta.access[action as ResourceAction];
  return role !== null && roles?.includes(role) === true;
}

/** The sider's entries for the user: resources with a list page of their own that they may list. */
export function menuResources(
  resources: readonly ConsoleResource[],
  user: { is_admin: boolean } | null | undefined,
): (ConsoleResource & { list: string })[] {
  return resources.filter(
    (r): r is ConsoleResource & { list: string } =>
      typeof r.list === "string" && !r.meta.hide && allows(r, "list", user),
  );
}

/** Where the user lands: the first sider entry (billing for administrators, workspaces else). */
export function homeRoute(resources: readonly ConsoleResource[], user: { is_admin: boolean } | null): string {
  return menuResources(resources, user)[0]?.list ?? "/";
}

/** Route patterns a resource owns, for highlighting its sider entry. */
export function resourceRoutes(resource: ConsoleResource): string[] {
  return [resource.list, resource.show, resource.create, resource.edit].filter(
    (route): route is string => typeof route === "string",
  );
}
