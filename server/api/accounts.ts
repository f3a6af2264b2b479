import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { loadingCache } from "../platform/loading-cache";
import { WORKSPACE_CACHE_OPTIONS } from "../workspaces/cache";
import { isOrgAdmin } from "./principal";
import type { WorkspaceRouteDeps } from "./route-deps";
import { CurrentUserSchema, failure, json } from "./schemas";

/**
 * /v1/accounts/me: the signed-in user; bearer tokens only (never API keys). `is_operator` says
 * whether they are a provider operator (the console then shows its operator area); never while
 * impersonating, as the operator API refuses impersonation sessions.
 */
export const accountRoutes: FastifyPluginAsyncZod<WorkspaceRouteDeps> = async (app, deps) => {
  // Every page's first load asks for the current user, and the embedded database runs its
  // statements one at a time: the administrators' emails and the operator flag are kept for as
  // long as the organization's workspaces are (server/workspaces/cache.ts). Both only shape what the console
  // shows, which itself keeps this answer for minutes; the operator API checks the role afresh.
  const adminsOf = loadingCache({
    ...WORKSPACE_CACHE_OPTIONS,
    load: (org: string) => deps.gateway.listOrganizationAdmins(org),
  });
  const operators = loadingCache({
    ...WORKSPACE_CACHE_OPTIONS,
    load: (user: string) => deps.gateway.isOperator(user),
  });
  app.get(
    "/accounts/me",
    {
      config: { auth: "bearer" },
      schema: {
        tags: ["Accounts"],
        summary: "The signed-in user",
        response: {
          200: json("Current user", CurrentUserSchema),
          401: failure("Not signed in with a bearer token"),
        },
      },
    },
    async (req) => {
      const p = req.principal;
      const org = p.org;
      const impersonating = p.impersonatorUserId !== null;
      const operator = impersonating ? Promise.resolve(false) : operators.get(p.userId);
      if (!org) {
        return {
          email: p.email,
          is_admin: false,
          is_impersonating: impersonating,
          is_operator: await operator,
          organization: null,
          workspace: null,
          org_admin_emails: [],
        };
      }
      const [current, admins, workspace, isOperator] = await Promise.all([
        deps.gateway.findOrganization(org.org_id),
        adminsOf.get(org.org_id),
        deps.workspaces.myWorkspace(org.org_id, p.userId),
        operator,
      ]);
      return {
        email: p.email,
        is_admin: isOrgAdmin(p),
        is_impersonating: impersonating,
        is_operator: isOperator,
        organization: { name: current?.name ?? org.org_name, org_uuid: org.org_id },
        workspace,
        org_admin_emails: admins.map((u) => u.email),
      };
    },
  );
};
