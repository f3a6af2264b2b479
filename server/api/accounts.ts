import type { IdentityGateway } from "../platform/identity-gateway";
import { isOrgAdmin } from "./principal";
import type { Router } from "./route";
import { CurrentUserSchema, ErrorSchema } from "./schemas";
import type { WorkspaceStore } from "./workspace-store";

/** /v1/accounts/me: the signed-in user; bearer tokens only (never API keys). */
export function registerAccounts(
  router: Router,
  deps: { gateway: IdentityGateway; workspaces: WorkspaceStore },
) {
  router.route({
    method: "GET",
    path: "/v1/accounts/me",
    tag: "Accounts",
    summary: "The signed-in user",
    auth: "bearer",
    responses: {
      200: { description: "Current user", schema: CurrentUserSchema },
      401: { description: "Not signed in with a bearer token", schema: ErrorSchema },
    },
    async handler({ principal: p }) {
      const org = p.org;
      if (!org) {
        return {
          email: p.email,
          is_admin: false,
          is_impersonating: p.impersonatorUserId !== null,
          organization: null,
          workspace: null,
          org_admin_emails: [],
        };
      }
      const [current, users, workspace] = await Promise.all([
        deps.gateway.findOrganization(org.org_id),
        deps.gateway.listOrganizationUsers(org.org_id),
        deps.workspaces.myWorkspace(org.org_id, p.userId),
      ]);
      return {
        email: p.email,
        is_admin: isOrgAdmin(p),
        is_impersonating: p.impersonatorUserId !== null,
        organization: { name: current?.name ?? org.org_name, org_uuid: org.org_id },
        workspace,
        org_admin_emails: users.filter((u) => u.role === "Owner" || u.role === "Admin").map((u) => u.email),
      };
    },
  });
}
