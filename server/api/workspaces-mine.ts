import { ApiError } from "../platform/errors";
import type { IdentityGateway } from "../platform/identity-gateway";
import { organizationName, workspaceJson } from "./access";
import { actorOf } from "./audit";
import type { Router } from "./route";
import { ChooseWorkspaceBodySchema, ErrorSchema, WorkspaceSchema } from "./schemas";
import type { WorkspaceStore } from "./workspace-store";

const noWorkspace = () => new ApiError(404, "not_found", "You have no workspace assigned.");
const errors = {
  400: { description: "Invalid request", schema: ErrorSchema },
  401: { description: "Not signed in", schema: ErrorSchema },
};

/**
 * /v1/workspaces/my-workspace: the caller's own (current) workspace, by API key or bearer token.
 * Scripts use it to find where their key acts; a user with no workspace gets a 404, not null.
 */
export function registerMyWorkspace(
  router: Router,
  deps: { gateway: IdentityGateway; workspaces: WorkspaceStore },
) {
  router.route({
    method: "GET",
    path: "/v1/workspaces/my-workspace",
    tag: "Workspaces",
    summary: "The caller's current workspace",
    description:
      "The live workspace the caller chose as current, else the first live one they were added to.",
    auth: "bearer_or_api_key",
    responses: {
      200: { description: "The workspace", schema: WorkspaceSchema },
      ...errors,
      404: { description: "No workspace assigned", schema: ErrorSchema },
    },
    async handler({ principal: p }) {
      if (!p.org) throw noWorkspace();
      const mine = await deps.workspaces.myWorkspace(p.org.org_id, p.userId);
      const row = mine ? await deps.workspaces.get(p.org.org_id, mine.workspace_uuid) : null;
      if (!row) throw noWorkspace();
      return workspaceJson(row, await organizationName(deps.gateway, p.org));
    },
  });

  router.route({
    method: "PUT",
    path: "/v1/workspaces/my-workspace",
    tag: "Workspaces",
    summary: "Choose the caller's current workspace",
    description: "Any of the caller's own live workspaces in their organization.",
    auth: "bearer_or_api_key",
    body: ChooseWorkspaceBodySchema,
    responses: {
      200: { description: "The chosen workspace", schema: WorkspaceSchema },
      ...errors,
      404: { description: "Not one of the caller's live workspaces", schema: ErrorSchema },
    },
    async handler({ principal: p, body }) {
      if (!p.org || !body) throw new ApiError(404, "not_found", "Workspace not found.");
      const name = await organizationName(deps.gateway, p.org);
      const row = await deps.workspaces.chooseCurrent(
        p.org.org_id,
        p.userId,
        body.workspace_uuid,
        actorOf(p),
      );
      if (!row) throw new ApiError(404, "not_found", "You are not a member of that workspace.");
      return workspaceJson(row, name);
    },
  });
}
