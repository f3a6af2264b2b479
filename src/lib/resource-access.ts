// One rule decides who may do what with a resource: its declaration's `access` map and the
// user's roles. The access-control provider answers with it, and everything in the console asks the
// provider (routes, sider, buttons, useCan), so a hidden menu entry and a refused route can never
// disagree. The product API enforces the same rules; this only shapes the console.
import type { ConsoleResource, ResourceAction, Role } from "../resources/types";

type User = { is_admin: boolean; is_operator?: boolean };

/** The user's organization role. */
export function roleOf(user: User | null | undefined): Role | null {
  if (!user) return null;
  return user.is_admin ? "admin" : "member";
}

/** Every role the user holds: their organization role, and "operator" for a provider operator. */
export function rolesOf(user: User | null | undefined): Role[] {
  const role = roleOf(user);
  if (role === null) return [];
  return user?.is_operator === true ? [role, "operator"] : [role];
}

export function allows(
  resource: Pick<ConsoleResource, "meta"> | undefined,
  action: string,
  user: User | null | undefined,
): boolean {
  const roles = resource?.meta.access[action as ResourceAction];
  return roles !== undefined && rolesOf(user).some((role) => roles.includes(role));
}

/** Why an action is refused, in the words of the roles that may do it. */
export function refusalReason(resource: Pick<ConsoleResource, "meta"> | undefined, action: string): string {
  const roles = resource?.meta.access[action as ResourceAction] ?? [];
  return roles.length > 0 && roles.every((role) => role === "operator")
    ? "Provider operators only"
    : "Administrators only";
}
