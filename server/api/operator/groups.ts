import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { formatUsdExact } from "../../../contract/money";
import { setGroup } from "../../metering/billing/billing";
import { listGroups } from "../../metering/billing/ledger";
import { textField, usdField } from "../fields";
import type { OperatorRouteDeps } from "../route-deps";
import { failure, json } from "../schemas";
import { MAX_OPERATOR_AMOUNT_USD, OPERATOR_ERRORS, OrganizationParamsSchema, organizationOf } from "./common";
import { installOperatorGuard, operatorRoute } from "./guard";

const WorkspaceGroupSchema = z
  .object({
    workspace_group_uuid: z.uuid(),
    name: z.string(),
    prepaid_usd: z.string().meta({ description: "Prepaid balance, exact decimal string." }),
    workspaces: z.array(z.string()).meta({ description: "Its workspaces' names, ascending." }),
  })
  .meta({ id: "WorkspaceGroup" });

/** The most workspaces one request may name (an organization has far fewer). */
const MAX_GROUP_WORKSPACES = 1_000;

const PutBodySchema = z
  .strictObject({
    name: textField("name", 200),
    prepaid_usd: usdField("prepaid_usd", { maxUsd: MAX_OPERATOR_AMOUNT_USD, zero: true })
      .optional()
      .meta({ description: "Omitted: unchanged (0 for a new group)." }),
    workspaces: z
      .array(textField("workspaces item", 200), { error: "workspaces must be a list of names or uuids." })
      .max(MAX_GROUP_WORKSPACES, { error: `workspaces may name at most ${MAX_GROUP_WORKSPACES}.` })
      .optional()
      .meta({ description: "Live workspaces by name or uuid; replaces the members. Omitted: unchanged." }),
  })
  .meta({ id: "WorkspaceGroupBody" });

/**
 * /v1/operator/organizations/{organization}/workspace-groups: workspaces that share a prepaid
 * balance on the bill, for provider operators.
 */
export const operatorGroupRoutes: FastifyPluginAsyncZod<OperatorRouteDeps> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "manage workspace groups");

  app.get(
    "/operator/organizations/:organization/workspace-groups",
    operatorRoute({
      summary: "List an organization's workspace groups",
      description: "Provider operators only. By name, each with its workspaces.",
      params: OrganizationParamsSchema,
      response: {
        200: json("The groups", z.object({ workspace_groups: z.array(WorkspaceGroupSchema) })),
        ...OPERATOR_ERRORS,
        404: failure("No such organization"),
      },
    }),
    async (req) => {
      const org = await organizationOf(deps.db, req.params.organization);
      return {
        workspace_groups: (await listGroups(deps.db, org.id)).map((g) => ({
          workspace_group_uuid: g.workspaceGroupUuid,
          name: g.name,
          prepaid_usd: formatUsdExact(g.prepaidMicros),
          workspaces: g.workspaces,
        })),
      };
    },
  );

  app.put(
    "/operator/organizations/:organization/workspace-groups",
    operatorRoute({
      summary: "Create or change a workspace group",
      description:
        "Provider operators only. The group of that name is created if missing; prepaid_usd and " +
        "workspaces, when given, replace its own. Audited (workspace_group.changed).",
      params: OrganizationParamsSchema,
      body: PutBodySchema,
      response: {
        200: json("The group", WorkspaceGroupSchema),
        ...OPERATOR_ERRORS,
        404: failure("No such organization, or a workspace it does not have"),
      },
    }),
    async (req) => {
      const org = await organizationOf(deps.db, req.params.organization);
      const b = req.body;
      const g = await setGroup(deps.db, org.id, {
        name: b.name,
        ...(b.prepaid_usd !== undefined ? { prepaidMicros: b.prepaid_usd } : {}),
        ...(b.workspaces ? { workspaces: b.workspaces } : {}),
        actor: actorOf(req),
      });
      return {
        workspace_group_uuid: g.group.workspaceGroupUuid,
        name: g.group.groupName,
        prepaid_usd: formatUsdExact(g.group.prepaidMicros),
        workspaces: g.workspaces,
      };
    },
  );
};
