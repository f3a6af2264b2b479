import type { IdentityGateway } from "../platform/identity-gateway";
import type { Router } from "./route";
import { ErrorSchema, OrganizationUserSchema } from "./schemas";

/** GET /v1/accounts/organization/users: the caller's organization's users (bearer only). */
export function registerOrganizationUsers(router: Router, deps: { gateway: IdentityGateway }) {
  router.route({
    method: "GET",
    path: "/v1/accounts/organization/users",
    tag: "Accounts",
    summary: "Users of the caller's organization",
    description: "In email order; the candidates for workspace membership. Empty without an organization.",
    auth: "bearer",
    responses: {
      200: { description: "Organization users", schema: OrganizationUserSchema.array() },
      400: { description: "Invalid request", schema: ErrorSchema },
      401: { description: "Not signed in with a bearer token", schema: ErrorSchema },
    },
    async handler({ principal: p }) {
      if (!p.org) return [];
      const users = await deps.gateway.listOrganizationUsers(p.org.org_id);
      return users
        .map((u) => ({ email: u.email, user_id: u.user_id, role: u.role }))
        .sort((a, b) => a.email.localeCompare(b.email));
    },
  });
}
