// Whom a session's token acts for, by one rule for the product API (server/api/principal.ts, which
// decides) and the console (src/lib/session-membership.ts, which only guesses what to ask for
// early), so that the two cannot drift: the token's organization is the first of its memberships,
// and an administrator's roles there, inherited ones included, hold "Admin".

export const ADMIN_ROLE = "Admin";

/** The membership a token acts in: the first of its organizations (tokens of this product hold one). */
export function actingMembership<T>(byOrganization: Record<string, T> | undefined): T | undefined {
  return Object.values(byOrganization ?? {})[0];
}

/** Whether a member with these roles (inherited ones included) administers the organization. */
export function rolesGrantAdmin(roles: readonly string[] | undefined): boolean {
  return roles?.includes(ADMIN_ROLE) ?? false;
}
