import {
  inheritedRoles,
  isAtLeastRole,
  parseStoredRoles,
  permissionsFor,
  ROLE_HIERARCHY,
  type RoleName,
  roleFromStored,
  roleToStored,
} from "../../../contract/role-hierarchy";

// Organization roles per role structure. In single_role_in_hierarchy a member has one role and
// inherits every role below it; in multi_role a member has a role plus additional roles, with no
// inheritance: "at least role X" means "holds X", and permissions are the union of held roles.
// Both are stored in better-auth's comma-joined member.role (primary role first).

export type RoleStructure = "single_role_in_hierarchy" | "multi_role";
export type MemberRoles = { role: RoleName; additional: RoleName[] };

export function roleStructureOf(stored: string | null | undefined): RoleStructure {
  return stored === "multi_role" ? "multi_role" : "single_role_in_hierarchy";
}

export function readRoles(stored: string): MemberRoles {
  return parseStoredRoles(stored);
}

export function storeRoles(r: MemberRoles): string {
  return [r.role, ...r.additional.filter((a) => a !== r.role)].map(roleToStored).join(",");
}

/** PropelAuth's inherited_user_roles_plus_current_role for this structure. */
export function rolesHeld(structure: RoleStructure, r: MemberRoles): RoleName[] {
  if (structure === "single_role_in_hierarchy") return inheritedRoles(r.role);
  return [r.role, ...r.additional.filter((a) => a !== r.role)];
}

export function permissionsOfRoles(structure: RoleStructure, r: MemberRoles): string[] {
  if (structure === "single_role_in_hierarchy")
    return permissionsFor([...inheritedRoles(r.role), ...r.additional]);
  return permissionsFor(rolesHeld(structure, r));
}

/** The highest role held: used to keep anyone from granting or touching roles above their own. */
function topRole(r: MemberRoles): RoleName {
  const held = [r.role, ...r.additional];
  return ROLE_HIERARCHY.find((name) => held.includes(name)) ?? "Member";
}

export function holdsRole(r: MemberRoles, role: RoleName): boolean {
  return r.role === role || r.additional.includes(role);
}

/** Whether an actor whose top role is `actor` may grant `roles` or act on a member holding them. */
export function mayHandle(actor: MemberRoles, target: MemberRoles): boolean {
  return isAtLeastRole(topRole(actor), topRole(target));
}

/** The roles an actor may assign (PropelAuth's possible_roles). */
export function assignableRoles(actor: MemberRoles): RoleName[] {
  return ROLE_HIERARCHY.filter((r) => isAtLeastRole(topRole(actor), r));
}

/** Parses a role name as the client sends it ("Admin"); lower-case stored names are accepted too. */
export function parseRoleName(name: string): RoleName | null {
  return roleFromStored(name);
}
