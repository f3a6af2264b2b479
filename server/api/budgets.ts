import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { BudgetSimulationRequestSchema, BudgetSimulationSchema } from "../../contract/budget-simulation";
import {
  BudgetAlertListSchema,
  BudgetCreateSchema,
  BudgetListSchema,
  BudgetSchema,
  BudgetUpdateSchema,
  DEFAULT_BUDGET_THRESHOLDS,
} from "../../contract/budgets";
import {
  budgetNotFound,
  createBudget,
  deleteBudget,
  listBudgets,
  openAlerts,
  updateBudget,
} from "../metering/budgets/admin";
import { simulateBudget } from "../metering/budgets/simulate";
import type { Db } from "../platform/database";
import { actorOf } from "./audit";
import { uuidField } from "./fields";
import type { RouteApp } from "./route-deps";
import { adminOrg } from "./route-hooks";
import { failure, json, noContent } from "./schemas";

const tags = ["Budgets"];
const ParamsSchema = z.strictObject({ budget_uuid: uuidField("budget_uuid") });
const ListQuerySchema = z.strictObject({
  workspace_uuid: uuidField("workspace_uuid")
    .optional()
    .meta({ description: "Only that workspace's budget." }),
});

const readErrors = {
  400: failure("Invalid request"),
  401: failure("Not signed in"),
  403: failure("Not an organization administrator"),
};
const oneBudgetErrors = { ...readErrors, 404: failure("No such budget in the organization") };

/** One budget of the organization; 404 when it has none by that uuid. */
async function oneBudget(db: Db, org: string, budgetUuid: string) {
  const [budget] = await listBudgets(db, org, { budgetUuid });
  if (!budget) throw budgetNotFound();
  return budget;
}

/** The administrators' reads: the budgets with this cycle's spend, their alerts, one budget. */
function budgetReadRoutes(app: RouteApp, db: Db) {
  app.get(
    "/budgets",
    {
      config: { auth: "bearer_or_api_key", admin: "see budgets" },
      schema: {
        tags,
        summary: "List the organization's budgets",
        description:
          "The organization's budget first, then the workspaces' by name, each with the current billing " +
          "cycle's spend (credits included), percent used and the thresholds it triggered and did not resolve.",
        querystring: ListQuerySchema,
        response: { 200: json("Budgets", BudgetListSchema), ...readErrors },
      },
    },
    async (req) => {
      const org = adminOrg(req);
      const workspaceUuid = req.query.workspace_uuid;
      return { budgets: await listBudgets(db, org.org_id, workspaceUuid ? { workspaceUuid } : {}) };
    },
  );

  app.get(
    "/budgets/alerts",
    {
      config: { auth: "bearer_or_api_key", admin: "see budget alerts" },
      schema: {
        tags,
        summary: "Open budget alerts",
        description:
          "The thresholds reached in the current billing cycle and not resolved since (spend fell back " +
          "below them or the budget changed), newest first: what the console's banner shows.",
        response: { 200: json("Alerts", BudgetAlertListSchema), ...readErrors },
      },
    },
    async (req) => ({ alerts: await openAlerts(db, adminOrg(req).org_id) }),
  );

  app.get(
    "/budgets/:budget_uuid",
    {
      config: { auth: "bearer_or_api_key", admin: "see budgets" },
      schema: {
        tags,
        summary: "One budget",
        params: ParamsSchema,
        response: { 200: json("The budget", BudgetSchema), ...oneBudgetErrors },
      },
    },
    async (req) => oneBudget(db, adminOrg(req).org_id, req.params.budget_uuid),
  );
}

/**
 * /v1/budgets: an organization's monthly budget and its workspaces' (administrators only), with
 * this cycle's spend and the alerts it triggered. Every change is audited (budget.created,
 * budget.changed, budget.deleted). Another organization's budget is a 404, as a missing one is.
 */
export const budgetRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  const one = (org: string, budgetUuid: string) => oneBudget(db, org, budgetUuid);

  budgetReadRoutes(app, db);

  app.post(
    "/budgets",
    {
      config: { auth: "bearer_or_api_key", admin: "set budgets" },
      schema: {
        tags,
        summary: "Set a budget",
        description:
          "A monthly budget for the organization (scope organization: all its usage) or for one live " +
          `workspace. Thresholds default to [${DEFAULT_BUDGET_THRESHOLDS.join(", ")}]: each sends one email ` +
          "to the organization's administrators and one budget.alert.triggered webhook event per billing " +
          "cycle when spend reaches it, and a resolved notice when spend falls back below it (a credit) or " +
          "a new cycle begins. With hard_limit, work-starting calls in the workspace (or, for the " +
          "organization's budget, in every workspace) answer 402 spend_limit_exceeded once spend reaches " +
          "the amount; usage is always recorded. A budget set below this cycle's spend triggers at once.",
        body: BudgetCreateSchema,
        response: {
          201: json("Created", BudgetSchema),
          ...readErrors,
          404: failure("workspace_uuid is not a live workspace of the organization"),
          409: failure("The organization, or that workspace, has a budget already"),
        },
      },
    },
    async (req, reply) => {
      const org = adminOrg(req).org_id;
      const uuid = await createBudget(db, org, req.body, actorOf(req.principal));
      return reply.status(201).send(await one(org, uuid));
    },
  );

  app.post(
    "/budgets/simulate",
    {
      config: { auth: "bearer_or_api_key", admin: "simulate budgets" },
      schema: {
        tags,
        summary: "Replay a proposed budget over past usage",
        description:
          "Takes what POST /v1/budgets takes, plus days (1..366, default 90), and replays that budget over the " +
          "organization's real usage of the last days, billing cycle by billing cycle, as the live budget judges " +
          "it: the day each threshold would have fired (once per cycle), and with hard_limit the periods work-" +
          "starting calls would have been refused, the eval runs started in them and the spend recorded in them. " +
          "Read from the daily rollups, so a day is the unit. Nothing is stored.",
        body: BudgetSimulationRequestSchema,
        response: {
          200: json("The replay", BudgetSimulationSchema),
          ...readErrors,
          404: failure("workspace_uuid is not a live workspace of the organization"),
        },
      },
    },
    async (req) => simulateBudget(db, adminOrg(req).org_id, req.body),
  );

  app.patch(
    "/budgets/:budget_uuid",
    {
      config: { auth: "bearer_or_api_key", admin: "change budgets" },
      schema: {
        tags,
        summary: "Change a budget",
        description:
          "Any of amount, thresholds and hard_limit; the scope stays. Alerts are evaluated again at once: " +
          "thresholds no longer reached (or removed) are resolved, newly reached ones trigger.",
        params: ParamsSchema,
        body: BudgetUpdateSchema,
        response: { 200: json("The changed budget", BudgetSchema), ...oneBudgetErrors },
      },
    },
    async (req) => {
      const org = adminOrg(req).org_id;
      await updateBudget(db, org, req.params.budget_uuid, req.body, actorOf(req.principal));
      return one(org, req.params.budget_uuid);
    },
  );

  app.delete(
    "/budgets/:budget_uuid",
    {
      config: { auth: "bearer_or_api_key", admin: "delete budgets" },
      schema: {
        tags,
        summary: "Delete a budget",
        description: "Its alerts go with it; its hard limit no longer applies.",
        params: ParamsSchema,
        response: { 204: noContent("Deleted"), ...oneBudgetErrors },
      },
    },
    async (req, reply) => {
      await deleteBudget(db, adminOrg(req).org_id, req.params.budget_uuid, actorOf(req.principal));
      return reply.status(204).send();
    },
  );
};
