import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { SPEND_LIMIT_ERROR_CODE } from "../../contract/budgets";
import { OUTCOME_SORT_FIELDS } from "../../contract/eval-run-figures";
import {
  EVAL_RUN_PAGE_SIZE,
  EVAL_RUN_SORT_FIELDS,
  EvalRunDetailSchema,
  EvalRunListSchema,
  MAX_EVAL_RUN_PAGE_SIZE,
  StartedEvalRunSchema,
} from "../../contract/eval-runs";
import { pageSizeParam, wholeNumberParam } from "../../contract/paging";
import { EstimateSchema, RESERVATION_IDLE_MINUTES, ReservationSchema } from "../../contract/reservations";
import { type Cycle, findCycle } from "../metering/billing/cycles";
import { priceEstimate } from "../metering/budgets/estimate";
import { lockBudgets } from "../metering/budgets/eval";
import { reservationOf, runReservation } from "../metering/budgets/reservations";
import { isStorableText } from "../metering/ingestion/events";
import { detailFigures, pageWithFigures, type RunPageQuery } from "../metering/usage/eval-run-pages";
import { cycleOfRun, evalRunDetail, startEvalRun } from "../metering/usage/eval-runs";
import { cachedCycleRuns, createEvalRunsCache, type EvalRunsCache } from "../metering/usage/eval-runs-cache";
import type { Db, Tx } from "../platform/database";
import { ApiError } from "../platform/errors";
import { workspaceNamesOf } from "../workspaces/cache";
import type { WorkspaceStore } from "../workspaces/store";
import { requireWorkspaceReader } from "./access";
import {
  FinishBodySchema,
  recordedJson,
  recordedOutcomeFields,
  recordRunOutcomes,
} from "./eval-run-outcomes";
import { EvalRunParamsSchema, queryTextField, uuidField } from "./fields";
import type { RouteApp } from "./route-deps";
import { adminOrg } from "./route-hooks";
import { ADMIN_ERRORS, failure, json } from "./schemas";
import { requireSpendAllowance, spendLimitResponse } from "./spend-limit";

const cycleParam = uuidField("billing_cycle_uuid")
  .optional()
  .meta({ description: "Default: the current billing cycle (for one run: the cycle it started in)." });

const uuid = uuidField("workspace_uuid");

const sortValues = [...EVAL_RUN_SORT_FIELDS, ...OUTCOME_SORT_FIELDS].flatMap((k) => [k, `-${k}`]);

const ListQuerySchema = z.strictObject({
  billing_cycle_uuid: cycleParam,
  workspace_uuid: z
    .union([uuid, z.array(uuid)], { error: "workspace_uuid must be a UUID." })
    .optional()
    .transform((v) =>
      v === undefined ? [] : [...new Set((Array.isArray(v) ? v : [v]).map((u) => u.toLowerCase()))],
    )
    .meta({ description: "Repeatable: the runs of these workspaces only." }),
  search: queryTextField("search", 200)
    .optional()
    .meta({ description: "Case-insensitive substring of the run id or the eval name." }),
  sort: z
    .string({ error: "sort must be a string." })
    .refine((v) => sortValues.includes(v), { error: `sort must be one of ${sortValues.join(", ")}.` })
    .default("-started_at")
    .meta({
      description:
        "started_at, cost, events, pass_rate or cost_per_passed_case (runs without one last); descending with a leading '-'. Default -started_at.",
    }),
  page: wholeNumberParam("page", 1_000_000, "page is too large.").default(1),
  page_size: pageSizeParam(MAX_EVAL_RUN_PAGE_SIZE, EVAL_RUN_PAGE_SIZE),
});

const RunParamsSchema = EvalRunParamsSchema;

const DetailQuerySchema = z.strictObject({ billing_cycle_uuid: cycleParam });

const label = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string.` })
    .refine(isStorableText, { error: `${field} must not contain NUL characters or unpaired surrogates.` })
    .trim()
    .max(max, { error: `${field} must be at most ${max} characters.` })
    .nullish()
    .transform((v) => (v ? v : null));

const StartBodySchema = z
  .strictObject({
    workspace_uuid: uuidField("workspace_uuid"),
    name: label("name", 500).meta({ description: "The eval's name, as its usage events will carry it." }),
    eval_type: label("eval_type", 100),
    estimate: EstimateSchema.optional().meta({
      description:
        "What the run is expected to cost: reserved against every hard limit covering the workspace until the " +
        `run finishes (POST /v1/eval-runs/{id}/finish) or sends no usage for ${RESERVATION_IDLE_MINUTES} minutes. ` +
        "A run whose estimate does not fit is refused with 402 and its shortfall, before anything is spent.",
    }),
  })
  .meta({ id: "StartEvalRunBody" });

const FinishedEvalRunSchema = z
  .object({
    eval_run_uuid: z.string(),
    finished_at: z.iso.datetime(),
    reservation: ReservationSchema.nullable(),
    ...recordedOutcomeFields,
  })
  .meta({ id: "FinishedEvalRun" });

const tags = ["Eval runs"];
const readConfig = { auth: "bearer_or_api_key", admin: "read the organization's eval runs" } as const;
const READERS =
  " Organization administrators only (Admin or Owner), like the usage records they are read from; " +
  "members and their keys get 403.";

const readErrors = {
  400: failure("A parameter is not valid"),
  ...ADMIN_ERRORS,
};

async function cycleFor(db: Db, organizationUuid: string, uuid: string | undefined): Promise<Cycle> {
  const cycle = await findCycle(db, organizationUuid, uuid);
  if (!cycle) throw new ApiError("not_found", "Billing cycle not found.");
  return cycle;
}

type EvalRunRouteDeps = {
  db: Db;
  /** Where the usage is read (a replica when configured); db otherwise. */
  readDb?: Db;
  workspaces: WorkspaceStore;
  /** The runs of cycles this API process keeps (default: one holding up to 200,000 runs). */
  runsCache?: EvalRunsCache;
};

/** The administrators' reads: a cycle's runs with their cost, and one run's figures. */
function runReadRoutes(app: RouteApp, deps: EvalRunRouteDeps) {
  const readDb = deps.readDb ?? deps.db;
  const cache = deps.runsCache ?? createEvalRunsCache();

  app.get(
    "/eval-runs",
    {
      config: readConfig,
      schema: {
        tags,
        summary: "List the eval runs of a billing cycle with their cost",
        description:
          "One row per eval run: the runs the cycle's usage events name (eval_run_uuid), with their events, " +
          "quantity and exact cost in the cycle, and the runs started through POST /v1/eval-runs in the cycle " +
          "that have no event yet. A run whose events span two cycles shows in each with that cycle's part. " +
          `Searched, filtered, sorted and paged by the server (page_size at most ${MAX_EVAL_RUN_PAGE_SIZE}).${READERS}`,
        querystring: ListQuerySchema,
        response: {
          200: json("One page of eval runs", EvalRunListSchema),
          ...readErrors,
          404: failure("No such billing cycle in the organization"),
        },
      },
    },
    async (req) => {
      const q = req.query;
      const cycle = await cycleFor(readDb, adminOrg(req).org_id, q.billing_cycle_uuid);
      const descending = q.sort.startsWith("-");
      const [all, names] = await Promise.all([
        cachedCycleRuns(readDb, cache, cycle),
        workspaceNamesOf(deps.workspaces, cycle.organizationUuid),
      ]);
      const { runs, total } = await pageWithFigures(readDb, cycle, all, names, {
        workspaceUuids: q.workspace_uuid,
        search: q.search ? q.search : null,
        sort: (descending ? q.sort.slice(1) : q.sort) as RunPageQuery["sort"],
        descending,
        page: q.page,
        pageSize: q.page_size,
      });
      return {
        eval_runs: runs,
        total,
        page: q.page,
        page_size: q.page_size,
        billing_cycle_uuid: cycle.billingCycleUuid,
      };
    },
  );

  app.get(
    "/eval-runs/:eval_run_uuid",
    {
      config: readConfig,
      schema: {
        tags,
        summary: "One eval run: its figures and cost per operation",
        description:
          "The run's events, quantity and exact cost in a billing cycle (by default the one it started in) and " +
          "the same per operation. Its events are listed by GET /v1/usage/records with eval_run_uuid and the " +
          `billing_cycle_uuid this answer names; their costs add up to this cost.${READERS}`,
        params: RunParamsSchema,
        querystring: DetailQuerySchema,
        response: {
          200: json("The run", EvalRunDetailSchema),
          ...readErrors,
          404: failure("No such run (or billing cycle) in the organization"),
        },
      },
    },
    async (req) => {
      const org = adminOrg(req).org_id;
      const run = req.params.eval_run_uuid;
      const cycle = req.query.billing_cycle_uuid
        ? await cycleFor(readDb, org, req.query.billing_cycle_uuid)
        : await cycleOfRun(readDb, org, run);
      const detail = cycle ? await evalRunDetail(readDb, cycle, run) : null;
      if (!cycle || !detail) throw new ApiError("not_found", "Eval run not found in this billing cycle.");
      const [reservation, figures] = await Promise.all([
        runReservation(readDb, org, run),
        detailFigures(readDb, org, detail),
      ]);
      return { ...detail, billing_cycle_uuid: cycle.billingCycleUuid, reservation, ...figures };
    },
  );
}

/** GET /v1/eval-runs, GET /v1/eval-runs/{eval_run_uuid} and POST /v1/eval-runs. */
export const evalRunRoutes: FastifyPluginAsyncZod<EvalRunRouteDeps> = async (app, deps) => {
  runReadRoutes(app, deps);

  app.post(
    "/eval-runs",
    {
      config: { auth: "bearer_or_api_key" },
      schema: {
        tags,
        summary: "Start an eval run",
        description:
          "What an eval service calls before it starts a run: checks the workspace's spend allowance (as " +
          "GET /v1/usage/allowance answers it) and records the run, whose eval_run_uuid the service then sends " +
          `with the run's usage events. A workspace past a hard spend limit answers 402 ${SPEND_LIMIT_ERROR_CODE} ` +
          "and nothing is recorded; usage sent anyway is still recorded. Organization administrators and the " +
          "workspace's members, with a bearer token or an API key. The run records which API key (its id) " +
          "started it, for the usage report's group_by api_key.",
        body: StartBodySchema,
        response: {
          201: json("The started run", StartedEvalRunSchema),
          400: failure("The body is not valid"),
          401: failure("Not signed in"),
          402: spendLimitResponse("The workspace is past a hard spend limit: the run was not started"),
          404: failure("No such live workspace, or the caller is not its member"),
        },
      },
    },
    async (req, reply) => {
      const p = req.principal;
      const body = req.body;
      const org = await requireWorkspaceReader(p, body.workspace_uuid, deps.workspaces.isMember);
      const workspace = await deps.workspaces.get(org.org_id, body.workspace_uuid);
      if (!workspace) throw new ApiError("not_found", "Workspace not found.");
      const estimate = body.estimate
        ? await priceEstimate(deps.db, org.org_id, body.estimate, body.eval_type)
        : null;
      // Judged and recorded under the organization's budget lock, on the primary: a budget just
      // lowered stops the next run, and two starts never both reserve the same free spend.
      const row = await deps.db.transaction(async (tx: Tx) => {
        await lockBudgets(tx, org.org_id);
        await requireSpendAllowance(tx, org.org_id, workspace.workspaceUuid, estimate);
        return startEvalRun(tx, {
          organizationUuid: org.org_id,
          workspaceUuid: workspace.workspaceUuid,
          name: body.name,
          evalType: body.eval_type,
          startedBy: { userId: p.userId, email: p.email, apiKeyId: p.apiKeyId ?? null },
          reservedMicros: estimate,
        });
      });
      reply.status(201);
      return {
        eval_run_uuid: row.evalRunUuid,
        workspace_uuid: row.workspaceUuid,
        eval_name: row.name,
        eval_type: row.evalType,
        started_by: row.startedByEmail,
        started_at: row.startedAt.toISOString(),
        // A run just started has used nothing and was active at its start: no need to read it back.
        reservation:
          row.reservedMicros === null
            ? null
            : reservationOf({
                reserved: row.reservedMicros,
                used: 0n,
                finishedAt: null,
                lastActivity: row.startedAt,
                now: row.startedAt,
              }),
      };
    },
  );
  app.post(
    "/eval-runs/:eval_run_uuid/finish",
    {
      config: { auth: "bearer_or_api_key" },
      schema: {
        tags,
        summary: "Finish an eval run",
        description:
          "What an eval service calls when a run is done: releases what its reservation held beyond what it used. " +
          "Usage sent afterwards is still recorded (and reported on the run as spend beyond its estimate). " +
          "Finishing a finished run answers it again. The optional body's outcomes (passed, failed, errored) " +
          "replace any reported before, also on a repeat. The first finish (and a repeat with outcomes) is audited " +
          "as eval_run.finished and sends the eval_run.finished webhook event with the run's figures. Organization " +
          "administrators and the workspace's members; a run of another organization, or one never started " +
          "through POST /v1/eval-runs, is a 404.",
        params: RunParamsSchema,
        body: FinishBodySchema,
        response: {
          200: json("The finished run", FinishedEvalRunSchema),
          400: failure("The run id or the outcomes are not valid"),
          401: failure("Not signed in"),
          404: failure("No such started run, or the caller is not a member of its workspace"),
        },
      },
    },
    async (req) => {
      const run = req.params.eval_run_uuid;
      const outcomes = req.body?.outcomes ?? null;
      const done = recordedJson(
        await recordRunOutcomes(deps, req.principal, run, { outcomes, finish: true }),
      );
      return {
        ...done,
        finished_at: done.finished_at ?? new Date().toISOString(),
        reservation: await runReservation(deps.db, req.principal.org?.org_id ?? "", run),
      };
    },
  );
};
