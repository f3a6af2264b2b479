// Organization roles in PropelAuth's single_role_in_hierarchy structure: Owner > Admin > Member.
// better-auth stores a member's roles as lower-case names joined by commas; the first is the
// primary role and any others are "additional roles" (used by the multi_role structure later).

export const ROLE_HIERARCHY = ["Owner", "Admin", "Member"] as const;
export type RoleName = (typeof ROLE_HIERARCHY)[number];

/** Permission names follow PropelAuth's `propelauth::` convention plus our own `eval::` ones. */
const MEMBER_PERMISSIONS = ["propelauth::can_view_other_members"];
const ADMIN_PERMISSIONS = [
  ...MEMBER_PERMISSIONS,
  "propelauth::can_invite",
  "propelauth::can_change_roles",
  "propelauth::can_remove_users",
  "propelauth::can_manage_api_keys",
  "propelauth::can_update_org_metadata",
  "eval::can_manage_workspaces",
  "eval::can_view_billing",
];
const OWNER_PERMISSIONS = [...ADMIN_PERMISSIONS, "propelauth::can_setup_saml", "propelauth::can_delete_org"];

const ROLE_PERMISSIONS: Record<RoleName, readonly string[]> = {
  Owner: OWNER_PERMISSIONS,
  Admin: ADMIN_PERMISSIONS,
  Member: MEMBER_PERMISSIONS,
};

export function roleFromStored(name: string): RoleName | null {
  const n = name.trim().toLowerCase();
  return ROLE_HIERARCHY.find((r) => r.toLowerCase() === n) ?? null;
}

export function roleToStored(role: RoleName): string {
  return role.toLowerCase();
}

/** The member's primary role and additional roles from better-auth's comma-joined column. */
export function parseStoredRoles(stored: string): { role: RoleName; additional: RoleName[] } {
  const roles = stored
    .split(",")
    .map(roleFromStored)
    .filter((r): r is RoleName => r !== null);
  const [role = "Member", ...additional] = roles;
  return { role, additional: additional.filter((r) => r !== role) };
}

/** The role itself and every role below it, highest first (PropelAuth's inherited roles). */
export function inheritedRoles(role: RoleName): RoleName[] {
  return ROLE_HIERARCHY.slice(ROLE_HIERARCHY.indexOf(role));
}

export function isAtLeastRole(role: RoleName, atLeast: RoleName): boolean {
  return ROLE_HIERARCHY.indexOf(role) <= ROLE_HIERARCHY.indexOf(atLeast);
}

/** Union of the permissions of every role given, sorted for stable tokens. */
export function permissionsFor(roles: readonly RoleName[]): string[] {
  return [...new Set(roles.flatMap((r) => ROLE_PERMISSIONS[r]))].sort();
}
