// Helpers that build the parts of a declaration many resources share in the same form: a resource
// shown only inside another page (no route, no sider entry), the same roles for several actions,
// and an update sent as PATCH to the record's path.
import type { ApiCall, ConsoleResource, ResourceAction, ResourceApi, Role } from "./types";

type Access = ConsoleResource["meta"]["access"];

/** A resource another page shows (`meta.hide`, no routes), read and changed through `api`. */
export function hiddenResource(
  name: string,
  label: string,
  api: ResourceApi,
  access: Access,
): ConsoleResource {
  return { name, meta: { label, hide: true, api, access } };
}

/** The same roles for each of `actions`. */
export function allow(roles: readonly Role[], ...actions: ResourceAction[]): Access {
  return Object.fromEntries(actions.map((action) => [action, roles]));
}

/** Every action for `roles`: list, show, create, edit and delete. */
export const allowAll = (roles: readonly Role[]): Access =>
  allow(roles, "list", "show", "create", "edit", "delete");

/** An update as a PATCH of the record (`${path}/{id}`) with only the changed fields. */
export const patchUpdate = (path: string): { update: ApiCall } => ({
  update: { method: "PATCH", path: `${path}/{id}` },
});
