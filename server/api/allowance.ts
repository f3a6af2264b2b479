import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  AllowanceSchema,
  MemberAllowanceSchema,
  memberAllowance,
  SPEND_LIMIT_ERROR_CODE,
} from "../../contract/budgets";
import { allowanceFor } from "../metering/budgets/allowance";
import type { Db } from "../platform/database";
import type { WorkspaceStore } from "../workspaces/store";
import { requireWorkspaceReader, workspaceNotFound } from "./access";
import { uuidField } from "./fields";
import { isOrgAdmin } from "./principal";
import { failure, json } from "./schemas";

const QuerySchema = z.strictObject({
  workspace_uuid: uuidField("workspace_uuid").meta({ description: "The workspace the work would run in." }),
});

/**
 * GET /v1/usage/allowance: what an eval service asks before it starts a run — may work start in
 * this workspace now, and how much spend is left before the tightest hard limit. Members ask about
 * their workspaces, administrators about any live workspace of the organization; any other
 * workspace (another organization's, deleted, unknown) is a 404. Only administrators are told the
 * cycle's spend and what runs hold reserved: cost reads are theirs.
 */
export const allowanceRoutes: FastifyPluginAsyncZod<{ db: Db; workspaces: WorkspaceStore }> = async (
  app,
  { db, workspaces },
) => {
  app.get(
    "/usage/allowance",
    {
      config: { auth: "bearer_or_api_key" },
      schema: {
        tags: ["Usage"],
        summary: "May work start in a workspace?",
        description:
          "allowed is false once the current billing cycle's spend has reached the amount of a budget with " +
          "a hard limit: the workspace's own (reason workspace_hard_limit) or the organization's " +
          "(organization_hard_limit). remaining is the spend left before the tightest hard limit (0 when " +
          "reached), null when no hard limit applies. Calls that start work in such a workspace answer " +
          `HTTP 402 with the error code ${SPEND_LIMIT_ERROR_CODE} (schema SpendLimitError). Usage that ` +
          "already happened is always recorded, so spend may pass the limit by what runs in flight cost. " +
          "Administrators (and their keys) are also told the tightest limit's spent and reserved (schema " +
          "Allowance); members and their keys only whether work may start and what is free (MemberAllowance).",
        querystring: QuerySchema,
        response: {
          // The full answer first: the serializer sends the first schema an answer matches.
          200: json("The allowance", z.union([AllowanceSchema, MemberAllowanceSchema])),
          400: failure("workspace_uuid is missing or not a UUID"),
          401: failure("Not signed in, or the API key is not valid"),
          404: failure("No such live workspace in the organization, or (members) not one of theirs"),
        },
      },
    },
    async (req) => {
      const uuid = req.query.workspace_uuid;
      const org = await requireWorkspaceReader(req.principal, uuid, workspaces.isMember);
      if (!(await workspaces.get(org.org_id, uuid))) throw workspaceNotFound();
      const allowance = await allowanceFor(db, org.org_id, uuid);
      return isOrgAdmin(req.principal) ? allowance : memberAllowance(allowance);
    },
  );
};
