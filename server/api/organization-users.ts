import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { IdentityGateway } from "../platform/identity-gateway";
import { failure, json, OrganizationUserSchema } from "./schemas";

/** GET /v1/accounts/organization/users: the caller's organization's users (bearer only). */
export const organizationUserRoutes: FastifyPluginAsyncZod<{ gateway: IdentityGateway }> = async (
  app,
  deps,
) => {
  app.get(
    "/accounts/organization/users",
    {
      config: { auth: "bearer" },
      schema: {
        tags: ["Accounts"],
        summary: "Users of the caller's organization",
        description:
          "In email order; the candidates for workspace membership. Empty without an organization.",
        response: {
          200: json("Organization users", OrganizationUserSchema.array()),
          400: failure("Invalid request"),
          401: failure("Not signed in with a bearer token"),
        },
      },
    },
    async (req) => {
      const org = req.principal.org;
      if (!org) return [];
      const users = await deps.gateway.listOrganizationUsers(org.org_id);
      return users
        .map((u) => ({ email: u.email, user_id: u.user_id, role: u.role }))
        .sort((a, b) => a.email.localeCompare(b.email));
    },
  );
};
