import { ApiError } from "../platform/errors";
import type { IdentityGateway } from "../platform/identity-gateway";
import { workspaceJson } from "./access";
import type { Router } from "./route";
import { ErrorSchema, WorkspaceParamsSchema, WorkspaceSchema } from "./schemas";
import type { RestoreResult, WorkspaceStore } from "./workspace-store";

/** The operator's (and the CLI's) answer to a restore, as an error when it did not happen. */
export function restoreError(r: Exclude<RestoreResult, { status: "restored" }>): ApiError {
  if (r.status === "not_found") return new ApiError(404, "not_found", "Workspace not found.");
  if (r.status === "not_deleted") return new ApiError(409, "not_deleted", "The workspace is not deleted.");
  return new ApiError(
    409,
    "conflict",
    `A workspace named ${r.name} already exists; rename it before restoring this one.`,
  );
}

/**
 * /v1/operator: calls for provider operators (identity role "admin", granted with the CLI's
 * `operator grant`), across organizations. Bearer only; refused while impersonating.
 */
export function registerOperator(
  router: Router,
  deps: { gateway: IdentityGateway; workspaces: WorkspaceStore },
) {
  router.route({
    method: "POST",
    path: "/v1/operator/workspaces/{workspace_uuid}/restore",
    tag: "Operator",
    summary: "Restore a deleted workspace",
    description: "Provider operators only. Members regain access; fails if a live workspace took its name.",
    auth: "bearer",
    params: WorkspaceParamsSchema,
    responses: {
      200: { description: "The restored workspace", schema: WorkspaceSchema },
      400: { description: "Invalid request", schema: ErrorSchema },
      401: { description: "Not signed in with a bearer token", schema: ErrorSchema },
      403: { description: "Not a provider operator", schema: ErrorSchema },
      404: { description: "No such workspace", schema: ErrorSchema },
      409: { description: "Not deleted, or its name is taken", schema: ErrorSchema },
    },
    async handler({ principal: p, params }) {
      if (p.impersonatorUserId || !(await deps.gateway.isOperator(p.userId)))
        throw new ApiError(403, "forbidden", "Only provider operators can restore workspaces.");
      const r = await deps.workspaces.restoreWorkspace(params.workspace_uuid, {
        userId: p.userId,
        email: p.email,
        via: "operator",
        source: "api",
      });
      if (r.status !== "restored") throw restoreError(r);
      const org = await deps.gateway.findOrganization(r.workspace.organizationUuid);
      return workspaceJson(r.workspace, org?.name ?? "");
    },
  });
}
