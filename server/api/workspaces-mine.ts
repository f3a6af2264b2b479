import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ApiError } from "../platform/errors";
import { organizationName, workspaceJson } from "./access";
import { actorOf } from "./audit";
import type { WorkspaceRouteDeps } from "./route-deps";
import { ChooseWorkspaceBodySchema, failure, json, WorkspaceSchema } from "./schemas";

const noWorkspace = () => new ApiError("not_found", "You have no workspace assigned.");
const errors = { 400: failure("Invalid request"), 401: failure("Not signed in") };
const config = { auth: "bearer_or_api_key" } as const;
const tags = ["Workspaces"];

/**
 * /v1/workspaces/my-workspace: the caller's own (current) workspace, by API key or bearer token.
 * Scripts use it to find where their key acts; a user with no workspace gets a 404, not null.
 */
export const myWorkspaceRoutes: FastifyPluginAsyncZod<WorkspaceRouteDeps> = async (app, deps) => {
  app.get(
    "/workspaces/my-workspace",
    {
      config,
      schema: {
        tags,
        summary: "The caller's current workspace",
        description:
          "The live workspace the caller chose as current, else the first live one they were added to.",
        response: {
          200: json("The workspace", WorkspaceSchema),
          ...errors,
          404: failure("No workspace assigned"),
        },
      },
    },
    async (req) => {
      const p = req.principal;
      if (!p.org) throw noWorkspace();
      const mine = await deps.workspaces.myWorkspace(p.org.org_id, p.userId);
      const row = mine ? await deps.workspaces.get(p.org.org_id, mine.workspace_uuid) : null;
      if (!row) throw noWorkspace();
      return workspaceJson(row, await organizationName(deps.gateway, p.org));
    },
  );

  app.put(
    "/workspaces/my-workspace",
    {
      config,
      schema: {
        tags,
        summary: "Choose the caller's current workspace",
        description: "Any of the caller's own live workspaces in their organization.",
        body: ChooseWorkspaceBodySchema,
        response: {
          200: json("The chosen workspace", WorkspaceSchema),
          ...errors,
          404: failure("Not one of the caller's live workspaces"),
        },
      },
    },
    async (req) => {
      const p = req.principal;
      if (!p.org) throw new ApiError("not_found", "Workspace not found.");
      const name = await organizationName(deps.gateway, p.org);
      const row = await deps.workspaces.chooseCurrent(
        p.org.org_id,
        p.userId,
        req.body.workspace_uuid,
        actorOf(p),
      );
      if (!row) throw new ApiError("not_found", "You are not a member of that workspace.");
      return workspaceJson(row, name);
    },
  );
};
