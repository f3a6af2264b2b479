import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ApiError } from "../platform/errors";
import { requireWorkspaceReader, workspaceNotFound } from "./access";
import { actorOf } from "./audit";
import type { WorkspaceRouteDeps } from "./route-deps";
import { adminOrg } from "./route-hooks";
import {
  AddMemberBodySchema,
  AddMemberQuerySchema,
  failure,
  json,
  MemberParamsSchema,
  MemberSchema,
  noContent,
  WorkspaceParamsSchema,
} from "./schemas";

const readErrors = { 400: failure("Invalid request"), 401: failure("Not signed in") };
const writeErrors = { ...readErrors, 403: failure("Not an organization administrator") };
const tags = ["Workspace members"];
const manage = { auth: "bearer_or_api_key", admin: "manage workspace members" } as const;

/**
 * /v1/workspaces/{uuid}/members: administrators, and members of that workspace, read them
 * (another workspace is a 404 to a member); administrators add
 * organization users (a user may be in several workspaces) and remove them.
 */
export const workspaceMemberRoutes: FastifyPluginAsyncZod<WorkspaceRouteDeps> = async (
  app,
  { workspaces, gateway },
) => {
  app.get(
    "/workspaces/:workspace_uuid/members",
    {
      config: { auth: "bearer_or_api_key" },
      schema: {
        tags,
        summary: "Members of a workspace",
        description:
          "In email order. Administrators read any live workspace's; members only their own workspaces' (else 404).",
        params: WorkspaceParamsSchema,
        response: {
          200: json("Members", MemberSchema.array()),
          ...readErrors,
          404: failure("No such live workspace in the organization, or (members) not one of theirs"),
        },
      },
    },
    async (req) => {
      const uuid = req.params.workspace_uuid;
      const org = await requireWorkspaceReader(req.principal, uuid, workspaces.isMember);
      const rows = await workspaces.listMembers(org.org_id, uuid);
      if (!rows) throw workspaceNotFound();
      return rows;
    },
  );

  app.post(
    "/workspaces/:workspace_uuid/members",
    {
      config: manage,
      schema: {
        tags,
        summary: "Add an organization user to a workspace",
        description:
          "The user's email comes as the query parameter user_email or as a JSON body {user_email}.",
        params: WorkspaceParamsSchema,
        querystring: AddMemberQuerySchema,
        // Optional: Fastify hands a missing body to the validator as null.
        body: AddMemberBodySchema.nullable(),
        response: {
          201: json("Added", MemberSchema),
          ...writeErrors,
          404: failure(
            "No such live workspace, or the user is not in the organization (user_not_in_organization)",
          ),
          409: failure("Already a member"),
        },
      },
    },
    async (req, reply) => {
      const org = adminOrg(req);
      const fromQuery = req.query.user_email;
      const fromBody = req.body?.user_email;
      if (fromQuery && fromBody && fromQuery !== fromBody)
        throw new ApiError("invalid_request", "user_email differs between the query and the body.");
      const email = fromQuery ?? fromBody;
      if (!email) throw new ApiError("invalid_request", "user_email is required.");
      // Identity first: a workspace write never waits on the identity service inside its transaction.
      const user = await gateway.findOrganizationUser(org.org_id, email);
      if (!(await workspaces.get(org.org_id, req.params.workspace_uuid))) throw workspaceNotFound();
      if (!user)
        throw new ApiError(
          "user_not_in_organization",
          `No user with email ${email} is a member of your organization.`,
        );
      const row = await workspaces.addWorkspaceMember(
        org.org_id,
        req.params.workspace_uuid,
        { id: user.user_id, email: user.email },
        actorOf(req.principal),
      );
      if (!row) throw workspaceNotFound();
      return reply.status(201).send(row);
    },
  );

  app.delete(
    "/workspaces/:workspace_uuid/members/:user_email",
    {
      config: manage,
      schema: {
        tags,
        summary: "Remove a member from a workspace",
        params: MemberParamsSchema,
        response: {
          204: noContent("Removed"),
          ...writeErrors,
          404: failure("No such live workspace, or the user is not a member (member_not_found)"),
        },
      },
    },
    async (req, reply) => {
      const org = adminOrg(req);
      const { workspace_uuid, user_email } = req.params;
      const r = await workspaces.removeWorkspaceMember(
        org.org_id,
        workspace_uuid,
        user_email,
        actorOf(req.principal),
      );
      if (r === "no_workspace") throw workspaceNotFound();
      if (r === "no_member")
        throw new ApiError("member_not_found", `${user_email} is not a member of this workspace.`);
      return reply.status(204).send();
    },
  );
};
