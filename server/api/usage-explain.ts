import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { pageNumberParam, pageSizeParam } from "../../contract/paging";
import {
  EXPLAIN_LEVELS,
  EXPLAIN_MAX_PAGE_SIZE,
  EXPLAIN_PAGE_SIZE,
  UsageExplainSchema,
} from "../../contract/usage-explain";
import { findCycle } from "../metering/billing/cycles";
import { ExplainNotFound, explainCharge } from "../metering/usage/explain";
import { ApiError } from "../platform/errors";
import { uuidField } from "./fields";
import { expensiveRead } from "./read-gate";
import { adminOrg } from "./route-hooks";
import { ADMIN_ERRORS, ADMINS_ONLY, failure, json } from "./schemas";
import { USAGE_READ_CONFIG, USAGE_TAGS, type UsageReadDeps, usageReadsOf } from "./usage-read-kit";

/** A node's name as the events carry it: any text, not empty. */
const nodeName = (field: string) =>
  z
    .string({ error: `${field} must be a string.` })
    .min(1, { error: `${field} must not be empty.` })
    .max(200, { error: `${field} must be at most 200 characters.` })
    .optional();

const QuerySchema = z.strictObject({
  billing_cycle_uuid: uuidField("billing_cycle_uuid")
    .optional()
    .meta({ description: "Default: the current billing cycle." }),
  level: z
    .enum(EXPLAIN_LEVELS, { error: `level must be one of ${EXPLAIN_LEVELS.join(", ")}.` })
    .default("cycle"),
  group: nodeName("group").meta({
    description: 'level group: the workspace group\'s name ("default": the workspaces in no group).',
  }),
  workspace_uuid: uuidField("workspace_uuid").optional().meta({
    description: "level workspace and eval_run: the workspace; left out, the usage without a workspace.",
  }),
  eval_run_uuid: nodeName("eval_run_uuid").meta({
    description:
      "level eval_run: the run (its id as the events carry it); left out, the usage without a run.",
  }),
  usage_event_uuid: uuidField("usage_event_uuid")
    .optional()
    .meta({ description: "level event: the usage event." }),
  page: pageNumberParam(),
  page_size: pageSizeParam(EXPLAIN_MAX_PAGE_SIZE, EXPLAIN_PAGE_SIZE),
});
type Query = z.output<typeof QuerySchema>;

/** The parameters each level takes; any other names a different node, and is refused. */
const TAKES: Record<Query["level"], readonly (keyof Query)[]> = {
  cycle: [],
  group: ["group"],
  workspace: ["workspace_uuid"],
  eval_run: ["workspace_uuid", "eval_run_uuid"],
  event: ["usage_event_uuid"],
};
const NODE_PARAMS = ["group", "workspace_uuid", "eval_run_uuid", "usage_event_uuid"] as const;

function checkNode(q: Query) {
  for (const name of NODE_PARAMS)
    if (q[name] !== undefined && !TAKES[q.level].includes(name))
      throw new ApiError("invalid_request", `${name} is not a parameter of level ${q.level}.`);
  if (q.level === "group" && q.group === undefined)
    throw new ApiError("invalid_request", "level group needs group (the workspace group's name).");
  if (q.level === "event" && q.usage_event_uuid === undefined)
    throw new ApiError("invalid_request", "level event needs usage_event_uuid.");
}

// A node reads the cycle's events (the whole cycle for the total and a group): gated like a report.
const EXPLAIN = expensiveRead("explain");

/** GET /v1/usage/explain: "Explain this charge", one node of a billing cycle's cost at a time. */
export const usageExplainRoutes: FastifyPluginAsyncZod<UsageReadDeps> = async (app, deps) => {
  const { db, reads, namesOf } = usageReadsOf(deps);
  app.get(
    "/usage/explain",
    {
      config: USAGE_READ_CONFIG,
      schema: {
        tags: USAGE_TAGS,
        summary: "Explain a billing cycle's cost",
        description:
          "A billing cycle's cost taken apart one level at a time: the cycle's total (its parts: the " +
          "workspace groups, then the usage without a workspace), a group (its workspaces), a workspace " +
          "or the usage without one (its eval runs, and the usage without a run), an eval run (its events) " +
          "and one event. Every node has its total, its lines — one per price rule version and unit price, " +
          "quantity × unit_price = cost exactly, and one per adjustment (an event whose cost is not " +
          "quantity × unit price: credits, charges, late-usage and price corrections) with its notes — and " +
          "its parts, largest first, paged (page, page_size), with the count and cost of the parts on earlier " +
          "and later pages: earlier + parts + later = total, to the micro-dollar. The cycle's total is its " +
          "billing cycle's total_cost and a group's its total_cost; a part's cost is the total of the node it " +
          "opens. Usage whose events are archived is counted by the bill but no longer itemized: it is a " +
          `line (and a part of its workspace) of its own. ${ADMINS_ONLY}`,
        querystring: QuerySchema,
        response: {
          200: json("The node, its lines and one page of its parts", UsageExplainSchema),
          400: failure("A query parameter is not valid, or does not belong to the level"),
          ...ADMIN_ERRORS,
          404: failure("No such billing cycle, group, workspace, eval run or event in the organization"),
          429: failure("Too many expensive reads of the organization at once, or a rate limit"),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      checkNode(q);
      const org = adminOrg(req).org_id;
      const cycle = await findCycle(db, org, q.billing_cycle_uuid);
      if (!cycle) throw new ApiError("not_found", "Billing cycle not found.");
      const release = reads.enter(org, EXPLAIN, reply);
      try {
        return await explainCharge(
          db,
          cycle,
          {
            level: q.level,
            group: q.group,
            workspaceUuid: q.workspace_uuid?.toLowerCase(),
            evalRunUuid: q.eval_run_uuid,
            usageEventUuid: q.usage_event_uuid?.toLowerCase(),
            page: q.page,
            pageSize: q.page_size,
          },
          namesOf,
        );
      } catch (err) {
        if (err instanceof ExplainNotFound) throw new ApiError("not_found", err.message);
        throw err;
      } finally {
        release();
      }
    },
  );
};
