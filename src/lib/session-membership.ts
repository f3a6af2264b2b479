// The organization the session's token acts in and the role it holds there, by the rule the
// product API applies to the token (contract/org-membership, which server/api/principal.ts uses
// too). Known as soon as the session answers, one request before /v1/accounts/me, so the entry
// starts the landing page's reads from it. Only a hint for what to ask early: what the console
// shows still follows /v1/accounts/me and the services' own checks.
import type { AuthenticationInfo } from "@propelauth/javascript";
import { actingMembership, rolesGrantAdmin } from "../../contract/org-membership";

export type SessionMembership = { role: "admin" | "member"; orgId: string | undefined };

/** Null when signed out. */
export function sessionMembership(info: AuthenticationInfo | null): SessionMembership | null {
  if (!info) return null;
  const org = actingMembership(info.orgIdToOrgMemberInfo);
  return {
    role: rolesGrantAdmin(org?.userInheritedRolesPlusCurrentRole) ? "admin" : "member",
    orgId: org?.orgId,
  };
}
