import type { RoleName } from "../../../contract/role-hierarchy";
import { IdentityError } from "../errors";
import type { OrgAccess } from "./access";
import { type MemberRoles, mayHandle, parseRoleName } from "./roles";

/**
 * Turns a requested role (plus additional roles) into stored roles for this organization, or
 * refuses: unknown names and additional roles in a single-role organization are bad fields;
 * granting a role above the actor's own is forbidden.
 */
export function resolveAssignment(access: OrgAccess, role: string, additional: string[]): MemberRoles {
  const primary = parseRoleName(role);
  if (!primary) throw new IdentityError("invalid_request_fields", undefined, { role: "Unknown role." });
  const extra: RoleName[] = [];
  for (const name of additional) {
    const r = parseRoleName(name);
    if (!r)
      throw new IdentityError("invalid_request_fields", undefined, { additional_roles: "Unknown role." });
    if (r !== primary && !extra.includes(r)) extra.push(r);
  }
  if (access.structure === "single_role_in_hierarchy" && extra.length > 0)
    throw new IdentityError("invalid_request_fields", undefined, {
      additional_roles: "This organization gives each member a single role.",
    });
  const wanted = { role: primary, additional: extra };
  if (!mayHandle(access.roles, wanted))
    throw new IdentityError("action_forbidden", "You can't give a role above your own.");
  return wanted;
}
