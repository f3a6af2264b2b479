import { ApiError } from "../platform/errors";
import type { IdentityGateway } from "../platform/identity-gateway";
import type { WorkspaceRow } from "../workspaces/store";
import { isOrgAdmin, type OrgMemberClaim, type Principal } from "./principal";

export const forbidden = (message: string) => new ApiError("forbidden", message);
export const workspaceNotFound = () => new ApiError("not_found", "Workspace not found.");

/** Organization administrators (Admin or Owner) manage workspaces; members only read. */
export function requireAdmin(p: Principal, action: string): OrgMemberClaim {
  if (!p.org) throw forbidden("You are not a member of an organization.");
  if (!isOrgAdmin(p)) throw forbidden(`Only organization administrators can ${action}.`);
  return p.org;
}

/**
 * Workspace details and members: administrators open every live workspace of the organization;
 * members only the workspaces they belong to (others answer 404, as a deleted one does).
 */
export async function requireWorkspaceReader(
  p: Principal,
  uuid: string,
  isMember: (orgId: string, uuid: string, userId: string) => Promise<boolean>,
): Promise<OrgMemberClaim> {
  if (!p.org) throw workspaceNotFound();
  if (!isOrgAdmin(p) && !(await isMember(p.org.org_id, uuid, p.userId))) throw workspaceNotFound();
  return p.org;
}

/** A body's organization_uuid must name the caller's own organization. */
export function requireOwnOrganization(org: OrgMemberClaim, organizationUuid: string) {
  if (organizationUuid !== org.org_id)
    throw forbidden("organization_uuid must be the organization you are signed in to.");
}

/** The organization's current name (tokens may carry an older one). */
export async function organizationName(gateway: IdentityGateway, org: OrgMemberClaim): Promise<string> {
  return (await gateway.findOrganization(org.org_id))?.name ?? org.org_name;
}

export function workspaceJson(row: WorkspaceRow, organizationName: string) {
  return {
    workspace_uuid: row.workspaceUuid,
    name: row.name,
    organization_uuid: row.organizationUuid,
    organization_name: organizationName,
    member_count: row.memberCount,
    created_at: row.createdAt.toISOString(),
    deleted_at: row.deletedAt ? row.deletedAt.toISOString() : null,
  };
}
