import { ApiError } from "../platform/errors";
import type { IdentityGateway } from "../platform/identity-gateway";
import { requireAdmin, requireWorkspaceReader, workspaceNotFound } from "./access";
import { actorOf } from "./audit";
import type { Router } from "./route";
import {
  AddMemberBodySchema,
  AddMemberQuerySchema,
  ErrorSchema,
  MemberParamsSchema,
  MemberSchema,
  WorkspaceParamsSchema,
} from "./schemas";
import type { WorkspaceStore } from "./workspace-store";

const e = (description: string) => ({ description, schema: ErrorSchema });
const readErrors = { 400: e("Invalid request"), 401: e("Not signed in") };
const writeErrors = { ...readErrors, 403: e("Not an organization administrator") };

/**
 * /v1/workspaces/{uuid}/members: administrators, and members of that workspace, read them
 * (another workspace is a 404 to a member); administrators add
 * organization users (a user may be in several workspaces) and remove them.
 */
export function registerWorkspaceMembers(
  router: Router,
  deps: { gateway: IdentityGateway; workspaces: WorkspaceStore },
) {
  const { workspaces, gateway } = deps;

  router.route({
    method: "GET",
    path: "/v1/workspaces/{workspace_uuid}/members",
    tag: "Workspace members",
    summary: "Members of a workspace",
    description:
      "In email order. Administrators read any live workspace's; members only their own workspaces' (else 404).",
    auth: "bearer_or_api_key",
    params: WorkspaceParamsSchema,
    responses: {
      200: { description: "Members", schema: MemberSchema.array() },
      ...readErrors,
      404: e("No such live workspace in the organization, or (members) not one of theirs"),
    },
    async handler({ principal: p, params }) {
      const org = await requireWorkspaceReader(p, params.workspace_uuid, workspaces.isMember);
      const rows = await workspaces.listMembers(org.org_id, params.workspace_uuid);
      if (!rows) throw workspaceNotFound();
      return rows;
    },
  });

  router.route({
    method: "POST",
    path: "/v1/workspaces/{workspace_uuid}/members",
    tag: "Workspace members",
    summary: "Add an organization user to a workspace",
    description: "The user's email comes as the query parameter user_email or as a JSON body {user_email}.",
    auth: "bearer_or_api_key",
    params: WorkspaceParamsSchema,
    query: AddMemberQuerySchema,
    body: AddMemberBodySchema,
    bodyOptional: true,
    responses: {
      201: { description: "Added", schema: MemberSchema },
      ...writeErrors,
      404: e("No such live workspace, or the user is not in the organization (user_not_in_organization)"),
      409: e("Already a member"),
    },
    async handler({ principal: p, params, query, body, reply }) {
      const org = requireAdmin(p, "manage workspace members");
      const fromQuery = query.user_email;
      const fromBody = body?.user_email;
      if (fromQuery && fromBody && fromQuery !== fromBody)
        throw new ApiError(400, "invalid_request", "user_email differs between the query and the body.");
      const email = fromQuery ?? fromBody;
      if (!email) throw new ApiError(400, "invalid_request", "user_email is required.");
      // Identity first: a workspace write never waits on the identity service inside its transaction.
      const user = (await gateway.listOrganizationUsers(org.org_id)).find(
        (u) => u.email.toLowerCase() === email,
      );
      if (!(await workspaces.get(org.org_id, params.workspace_uuid))) throw workspaceNotFound();
      if (!user)
        throw new ApiError(
          404,
          "user_not_in_organization",
          `No user with email ${email} is a member of your organization.`,
        );
      const row = await workspaces.addWorkspaceMember(
        org.org_id,
        params.workspace_uuid,
        { id: user.user_id, email: user.email },
        actorOf(p),
      );
      if (!row) throw workspaceNotFound();
      reply.status(201);
      return row;
    },
  });

  router.route({
    method: "DELETE",
    path: "/v1/workspaces/{workspace_uuid}/members/{user_email}",
    tag: "Workspace members",
    summary: "Remove a member from a workspace",
    auth: "bearer_or_api_key",
    params: MemberParamsSchema,
    responses: {
      204: { description: "Removed" },
      ...writeErrors,
      404: e("No such live workspace, or the user is not a member (member_not_found)"),
    },
    async handler({ principal: p, params, reply }) {
      const org = requireAdmin(p, "manage workspace members");
      const r = await workspaces.removeWorkspaceMember(
        org.org_id,
        params.workspace_uuid,
        params.user_email,
        actorOf(p),
      );
      if (r === "no_workspace") throw workspaceNotFound();
      if (r === "no_member")
        throw new ApiError(
          404,
          "member_not_found",
          `${params.user_email} is not a member of this workspace.`,
        );
      reply.status(204);
    },
  });
}
