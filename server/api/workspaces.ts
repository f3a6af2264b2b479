import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { WorkspaceRow } from "../workspaces/store";
import {
  organizationName,
  requireOwnOrganization,
  requireWorkspaceReader,
  workspaceJson,
  workspaceNotFound,
} from "./access";
import { actorOf } from "./audit";
import { isOrgAdmin } from "./principal";
import type { WorkspaceRouteDeps } from "./route-deps";
import { adminOrg } from "./route-hooks";
import {
  failure,
  json,
  ListWorkspacesQuerySchema,
  noContent,
  WorkspaceBodySchema,
  WorkspaceParamsSchema,
  WorkspaceSchema,
} from "./schemas";

const readErrors = { 400: failure("Invalid request"), 401: failure("Not signed in") };
const writeErrors = {
  ...readErrors,
  403: failure("Not an organization administrator, or another organization"),
};
/** What a change to one workspace can answer besides success. */
const oneWorkspaceWriteErrors = {
  ...writeErrors,
  404: failure("No such live workspace in the organization"),
};
const tags = ["Workspaces"];

// The list's JSON per list read from the store (the cached lists are the same array on every
// call until a change): mapped once per organization name, frozen so that the serializer checks
// and encodes it once too.
type WorkspaceJson = ReturnType<typeof workspaceJson>;
const listJsons = new WeakMap<readonly WorkspaceRow[], { name: string; json: WorkspaceJson[] }>();

function listJson(rows: readonly WorkspaceRow[], name: string): WorkspaceJson[] {
  const hit = listJsons.get(rows);
  if (hit?.name === name) return hit.json;
  // Frozen (the array; its objects are never handed out otherwise).
  const json = Object.freeze(rows.map((r) => workspaceJson(r, name))) as WorkspaceJson[];
  listJsons.set(rows, { name, json });
  return json;
}

/** The workspace the store found, as JSON; 404 when it found none (gone, or another organization's). */
function foundWorkspace(row: WorkspaceRow | null | undefined, organizationName: string) {
  if (!row) throw workspaceNotFound();
  return workspaceJson(row, organizationName);
}

/**
 * /v1/workspaces: every organization member lists the organization's live workspaces and opens
 * the details of those they belong to; administrators open every one, create, rename and delete
 * them, and alone list deleted ones (show_deleted, for billing history: spec §4 hides deleted
 * workspaces from everyone else, so members' show_deleted is ignored). A deleted workspace, or
 * one of another organization, is a 404 for everyone; so is another workspace for a member.
 */
export const workspaceRoutes: FastifyPluginAsyncZod<WorkspaceRouteDeps> = async (
  app,
  { workspaces, gateway },
) => {
  // Both with and without the trailing slash; the documented one has it.
  for (const url of ["/workspaces/", "/workspaces"]) {
    const hide = !url.endsWith("/");
    app.get(
      url,
      {
        config: { auth: "bearer_or_api_key" },
        schema: {
          hide,
          tags,
          summary: "List the organization's workspaces",
          description:
            "In name order. show_deleted=true includes deleted workspaces (for billing history) for " +
            "organization administrators; members always get the live workspaces only.",
          querystring: ListWorkspacesQuerySchema,
          response: { 200: json("Workspaces", WorkspaceSchema.array()), ...readErrors },
        },
      },
      async (req) => {
        const p = req.principal;
        if (!p.org) return [];
        const [rows, name] = await Promise.all([
          workspaces.list(p.org.org_id, { includeDeleted: req.query.show_deleted && isOrgAdmin(p) }),
          organizationName(gateway, p.org),
        ]);
        return listJson(rows, name);
      },
    );

    app.post(
      url,
      {
        config: { auth: "bearer_or_api_key", admin: "create workspaces" },
        schema: {
          hide,
          tags,
          summary: "Create a workspace",
          body: WorkspaceBodySchema,
          response: {
            201: json("Created", WorkspaceSchema),
            ...writeErrors,
            409: failure("A live workspace of that name exists"),
          },
        },
      },
      async (req, reply) => {
        const org = adminOrg(req);
        requireOwnOrganization(org, req.body.organization_uuid);
        const name = await organizationName(gateway, org);
        const row = await workspaces.createWorkspace(org.org_id, req.body.name, actorOf(req.principal));
        return reply.status(201).send(workspaceJson(row, name));
      },
    );
  }

  app.get(
    "/workspaces/:workspace_uuid",
    {
      config: { auth: "bearer_or_api_key" },
      schema: {
        tags,
        summary: "One live workspace of the caller's organization",
        description:
          "Administrators open any live workspace of the organization; members only their own (else 404).",
        params: WorkspaceParamsSchema,
        response: {
          200: json("The workspace", WorkspaceSchema),
          ...readErrors,
          404: failure("No such live workspace in the organization, or (members) not one of theirs"),
        },
      },
    },
    async (req) => {
      const uuid = req.params.workspace_uuid;
      const org = await requireWorkspaceReader(req.principal, uuid, workspaces.isMember);
      const [row, name] = await Promise.all([
        workspaces.get(org.org_id, uuid),
        organizationName(gateway, org),
      ]);
      return foundWorkspace(row, name);
    },
  );

  app.put(
    "/workspaces/:workspace_uuid",
    {
      config: { auth: "bearer_or_api_key", admin: "edit workspaces" },
      schema: {
        tags,
        summary: "Rename a workspace",
        params: WorkspaceParamsSchema,
        body: WorkspaceBodySchema,
        response: {
          200: json("The updated workspace", WorkspaceSchema),
          ...oneWorkspaceWriteErrors,
          409: failure("Another live workspace has that name"),
        },
      },
    },
    async (req) => {
      const org = adminOrg(req);
      requireOwnOrganization(org, req.body.organization_uuid);
      const name = await organizationName(gateway, org);
      const row = await workspaces.renameWorkspace(
        org.org_id,
        req.params.workspace_uuid,
        req.body.name,
        actorOf(req.principal),
      );
      return foundWorkspace(row, name);
    },
  );

  app.delete(
    "/workspaces/:workspace_uuid",
    {
      config: { auth: "bearer_or_api_key", admin: "delete workspaces" },
      schema: {
        tags,
        summary: "Delete a workspace",
        description:
          "Soft delete: members lose access at once and it is hidden from everyone; billing and usage " +
          "history stay. Only a provider operator can restore it.",
        params: WorkspaceParamsSchema,
        response: {
          204: noContent("Deleted"),
          ...oneWorkspaceWriteErrors,
        },
      },
    },
    async (req, reply) => {
      const org = adminOrg(req);
      if (!(await workspaces.deleteWorkspace(org.org_id, req.params.workspace_uuid, actorOf(req.principal))))
        throw workspaceNotFound();
      return reply.status(204).send();
    },
  );
};
