import type { IdentityGateway } from "../platform/identity-gateway";
import {
  organizationName,
  requireAdmin,
  requireOwnOrganization,
  requireWorkspaceReader,
  workspaceJson,
  workspaceNotFound,
} from "./access";
import { actorOf } from "./audit";
import { isOrgAdmin } from "./principal";
import type { Router } from "./route";
import {
  ErrorSchema,
  ListWorkspacesQuerySchema,
  WorkspaceBodySchema,
  WorkspaceParamsSchema,
  WorkspaceSchema,
} from "./schemas";
import type { WorkspaceStore } from "./workspace-store";

const e = (description: string) => ({ description, schema: ErrorSchema });
const readErrors = { 400: e("Invalid request"), 401: e("Not signed in") };
const writeErrors = { ...readErrors, 403: e("Not an organization administrator, or another organization") };

/**
 * /v1/workspaces: every organization member lists the organization's live workspaces and opens
 * the details of those they belong to; administrators open every one, create, rename and delete
 * them, and alone list deleted ones (show_deleted, for billing history: spec §4 hides deleted
 * workspaces from everyone else, so members' show_deleted is ignored). A deleted workspace, or
 * one of another organization, is a 404 for everyone; so is another workspace for a member.
 */
export function registerWorkspaces(
  router: Router,
  deps: { gateway: IdentityGateway; workspaces: WorkspaceStore },
) {
  const { workspaces, gateway } = deps;

  router.route({
    method: "GET",
    path: "/v1/workspaces/",
    aliases: ["/v1/workspaces"],
    tag: "Workspaces",
    summary: "List the organization's workspaces",
    description:
      "In name order. show_deleted=true includes deleted workspaces (for billing history) for " +
      "organization administrators; members always get the live workspaces only.",
    auth: "bearer_or_api_key",
    query: ListWorkspacesQuerySchema,
    responses: { 200: { description: "Workspaces", schema: WorkspaceSchema.array() }, ...readErrors },
    async handler({ principal: p, query }) {
      if (!p.org) return [];
      const [rows, name] = await Promise.all([
        workspaces.list(p.org.org_id, { includeDeleted: query.show_deleted && isOrgAdmin(p) }),
        organizationName(gateway, p.org),
      ]);
      return rows.map((r) => workspaceJson(r, name));
    },
  });

  router.route({
    method: "POST",
    path: "/v1/workspaces/",
    aliases: ["/v1/workspaces"],
    tag: "Workspaces",
    summary: "Create a workspace",
    auth: "bearer_or_api_key",
    body: WorkspaceBodySchema,
    responses: {
      201: { description: "Created", schema: WorkspaceSchema },
      ...writeErrors,
      409: e("A live workspace of that name exists"),
    },
    async handler({ principal: p, body, reply }) {
      const org = requireAdmin(p, "create workspaces");
      if (!body) throw new Error("unreachable: body is required");
      requireOwnOrganization(org, body.organization_uuid);
      const name = await organizationName(gateway, org);
      const row = await workspaces.createWorkspace(org.org_id, body.name, actorOf(p));
      reply.status(201);
      return workspaceJson(row, name);
    },
  });

  router.route({
    method: "GET",
    path: "/v1/workspaces/{workspace_uuid}",
    tag: "Workspaces",
    summary: "One live workspace of the caller's organization",
    description:
      "Administrators open any live workspace of the organization; members only their own (else 404).",
    auth: "bearer_or_api_key",
    params: WorkspaceParamsSchema,
    responses: {
      200: { description: "The workspace", schema: WorkspaceSchema },
      ...readErrors,
      404: e("No such live workspace in the organization, or (members) not one of theirs"),
    },
    async handler({ principal: p, params }) {
      const org = await requireWorkspaceReader(p, params.workspace_uuid, workspaces.isMember);
      const [row, name] = await Promise.all([
        workspaces.get(org.org_id, params.workspace_uuid),
        organizationName(gateway, org),
      ]);
      if (!row) throw workspaceNotFound();
      return workspaceJson(row, name);
    },
  });

  router.route({
    method: "PUT",
    path: "/v1/workspaces/{workspace_uuid}",
    tag: "Workspaces",
    summary: "Rename a workspace",
    auth: "bearer_or_api_key",
    params: WorkspaceParamsSchema,
    body: WorkspaceBodySchema,
    responses: {
      200: { description: "The updated workspace", schema: WorkspaceSchema },
      ...writeErrors,
      404: e("No such live workspace in the organization"),
      409: e("Another live workspace has that name"),
    },
    async handler({ principal: p, params, body }) {
      const org = requireAdmin(p, "edit workspaces");
      if (!body) throw new Error("unreachable: body is required");
      requireOwnOrganization(org, body.organization_uuid);
      const name = await organizationName(gateway, org);
      const row = await workspaces.renameWorkspace(org.org_id, params.workspace_uuid, body.name, actorOf(p));
      if (!row) throw workspaceNotFound();
      return workspaceJson(row, name);
    },
  });

  router.route({
    method: "DELETE",
    path: "/v1/workspaces/{workspace_uuid}",
    tag: "Workspaces",
    summary: "Delete a workspace",
    description:
      "Soft delete: members lose access at once and it is hidden from everyone; billing and usage " +
      "history stay. Only a provider operator can restore it.",
    auth: "bearer_or_api_key",
    params: WorkspaceParamsSchema,
    responses: {
      204: { description: "Deleted" },
      ...writeErrors,
      404: e("No such live workspace in the organization"),
    },
    async handler({ principal: p, params, reply }) {
      const org = requireAdmin(p, "delete workspaces");
      if (!(await workspaces.deleteWorkspace(org.org_id, params.workspace_uuid, actorOf(p))))
        throw workspaceNotFound();
      reply.status(204);
    },
  });
}
