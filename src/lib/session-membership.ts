// The organization the session's token acts in and the role it holds there, by the rule the
// product API applies to the token (server/api/principal.ts: the first organization; its roles,
// inherited ones included, hold "Admin" for an administrator). Known as soon as the session
// answers, one request before /v1/accounts/me, so the entry starts the landing page's reads from
// it. Only a hint for what to ask early: what the console shows still follows /v1/accounts/me and
// the services' own checks.
import type { AuthenticationInfo } from "@propelauth/javascript";

export type SessionMembership = { role: "admin" | "member"; orgId: string | undefined };

/** Null when signed out. */
export function sessionMembership(info: AuthenticationInfo | null): SessionMembership | null {
  if (!info) return null;
  const org = Object.values(info.orgIdToOrgMemberInfo ?? {})[0];
  return {
    role: org?.userInheritedRolesPlusCurrentRole.includes("Admin") ? "admin" : "member",
    orgId: org?.orgId,
  };
}
