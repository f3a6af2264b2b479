import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ApiError } from "../platform/errors";
import { workspaceJson } from "./access";
import type { WorkspaceRouteDeps } from "./route-deps";
import { failure, json, WorkspaceParamsSchema, WorkspaceSchema } from "./schemas";
import type { RestoreResult } from "./workspace-store";

/** The operator's (and the CLI's) answer to a restore, as an error when it did not happen. */
export function restoreError(r: Exclude<RestoreResult, { status: "restored" }>): ApiError {
  if (r.status === "not_found") return new ApiError("not_found", "Workspace not found.");
  if (r.status === "not_deleted") return new ApiError("not_deleted", "The workspace is not deleted.");
  return new ApiError(
    "conflict",
    `A workspace named ${r.name} already exists; rename it before restoring this one.`,
  );
}

/**
 * /v1/operator: calls for provider operators (identity role "admin", granted with the CLI's
 * `operator grant`), across organizations. Bearer only; refused while impersonating.
 */
export const operatorRoutes: FastifyPluginAsyncZod<WorkspaceRouteDeps> = async (app, deps) => {
  app.post(
    "/operator/workspaces/:workspace_uuid/restore",
    {
      config: { auth: "bearer" },
      schema: {
        tags: ["Operator"],
        summary: "Restore a deleted workspace",
        description:
          "Provider operators only. Members regain access; fails if a live workspace took its name.",
        params: WorkspaceParamsSchema,
        response: {
          200: json("The restored workspace", WorkspaceSchema),
          400: failure("Invalid request"),
          401: failure("Not signed in with a bearer token"),
          403: failure("Not a provider operator"),
          404: failure("No such workspace"),
          409: failure("Not deleted, or its name is taken"),
        },
      },
      async preHandler(req) {
        const p = req.principal;
        if (p.impersonatorUserId || !(await deps.gateway.isOperator(p.userId)))
          throw new ApiError("forbidden", "Only provider operators can restore workspaces.");
      },
    },
    async (req) => {
      const p = req.principal;
      const r = await deps.workspaces.restoreWorkspace(req.params.workspace_uuid, {
        userId: p.userId,
        email: p.email,
        source: "console",
      });
      if (r.status !== "restored") throw restoreError(r);
      const org = await deps.gateway.findOrganization(r.workspace.organizationUuid);
      return workspaceJson(r.workspace, org?.name ?? "");
    },
  );
};
