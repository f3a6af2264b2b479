import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ApiError } from "../../platform/errors";
import type { RestoreResult } from "../../workspaces/store";
import { workspaceJson } from "../access";
import type { OperatorRouteDeps } from "../route-deps";
import { failure, json, WorkspaceParamsSchema, WorkspaceSchema } from "../schemas";
import { OPERATOR_ERRORS } from "./common";
import { installOperatorGuard, operatorRoute } from "./guard";

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
 * POST /v1/operator/workspaces/{workspace_uuid}/restore: a deleted workspace back, for provider
 * operators (their own bearer token, not while impersonating, or the local operator credential the
 * CLI's `workspace restore` uses), across organizations.
 */
export const operatorRoutes: FastifyPluginAsyncZod<OperatorRouteDeps> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "restore workspaces");

  app.post(
    "/operator/workspaces/:workspace_uuid/restore",
    operatorRoute({
      summary: "Restore a deleted workspace",
      description:
        "Provider operators only. Members regain access; fails if a live workspace took its name. " +
        "Audited (workspace.restored).",
      params: WorkspaceParamsSchema,
      response: {
        200: json("The restored workspace", WorkspaceSchema),
        ...OPERATOR_ERRORS,
        404: failure("No such workspace"),
        409: failure("Not deleted, or its name is taken"),
      },
    }),
    async (req) => {
      const r = await deps.workspaces.restoreWorkspace(req.params.workspace_uuid, actorOf(req));
      if (r.status !== "restored") throw restoreError(r);
      const org = await deps.gateway.findOrganization(r.workspace.organizationUuid);
      return workspaceJson(r.workspace, org?.name ?? "");
    },
  );
};
