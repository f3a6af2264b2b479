import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  differenceFrom,
  EvalRunComparisonSchema,
  type EvalRunFigures,
  MAX_COMPARED_RUNS,
  MIN_COMPARED_RUNS,
  type Outcomes,
  OutcomesInputSchema,
  OutcomesSchema,
  passRate,
} from "../../contract/eval-run-outcomes";
import {
  lockStartedRun,
  runFigures,
  startedRunWorkspace,
  writeRunOutcomes,
} from "../metering/usage/eval-run-outcomes";
import { writeAudit } from "../platform/audit";
import type { Db, Tx } from "../platform/database";
import { ApiError } from "../platform/errors";
import { enqueueWebhookEvent } from "../webhooks/enqueue";
import type { WorkspaceStore } from "../workspaces/store";
import { requireWorkspaceReader } from "./access";
import { actorOf } from "./audit";
import { EvalRunParamsSchema } from "./fields";
import type { Principal } from "./principal";
import { adminOrg } from "./route-hooks";
import { failure, json } from "./schemas";

const tags = ["Eval runs"];
const notFound = () => new ApiError("not_found", "Eval run not found.");

/** POST /v1/eval-runs/{id}/finish's optional body (Fastify hands a missing body over as null). */
export const FinishBodySchema = z
  .strictObject({
    outcomes: OutcomesInputSchema.optional().meta({
      description: "The run's outcomes, replacing any reported before (PUT …/outcomes).",
    }),
  })
  .meta({ id: "FinishEvalRunBody" })
  .nullable();

/** The outcomes fields a finish or an outcomes call answers. */
export const recordedOutcomeFields = {
  outcomes: OutcomesSchema.nullable().meta({ description: "As last reported; null when never reported." }),
  pass_rate: z.string().nullable().meta({ description: "passed ÷ all, 6 decimals; null without outcomes." }),
};

/**
 * The counts sent at the top level (`{"passed": 7}`), as a client reading "sets the same fields"
 * may send them, are taken as `{"outcomes": {...}}`: one validation, the same messages.
 */
function outcomesAtTopLevel(body: unknown): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body) || "outcomes" in body) return body;
  const keys = Object.keys(body);
  const counts = ["passed", "failed", "errored"];
  return keys.length > 0 && keys.every((k) => counts.includes(k)) ? { outcomes: body } : body;
}

const OutcomesBodySchema = z
  .strictObject({ outcomes: OutcomesInputSchema })
  .meta({ id: "EvalRunOutcomesBody" });

const RecordedOutcomesSchema = z
  .object({ eval_run_uuid: z.string(), finished_at: z.iso.datetime().nullable(), ...recordedOutcomeFields })
  .meta({ id: "EvalRunOutcomes" });

type Deps = { db: Db; readDb?: Db; workspaces: WorkspaceStore };

/**
 * Records a started run's outcomes and, when finishing, its end, in one transaction with its audit
 * row and, for a finish, the eval_run.finished webhook event carrying the run's figures. Only a run
 * started in the caller's organization, by its workspace's members and the administrators; any
 * other is a 404. A call that changes nothing (a repeated finish without outcomes) writes nothing.
 */
export async function recordRunOutcomes(
  deps: Deps,
  p: Principal,
  run: string,
  change: { outcomes: Outcomes | null; finish: boolean },
) {
  const org = p.org?.org_id;
  if (!org) throw notFound();
  // Access first, outside the transaction: the membership read takes its own connection, which
  // the embedded database's one connection could not give while the transaction holds it.
  const workspace = await startedRunWorkspace(deps.db, org, run);
  if (!workspace) throw notFound();
  await requireWorkspaceReader(p, workspace, deps.workspaces.isMember).catch(() => {
    throw notFound();
  });
  return deps.db.transaction(async (tx: Tx) => {
    const before = await lockStartedRun(tx, org, run);
    if (!before) throw notFound();
    const finishing = change.finish && before.finishedAt === null;
    if (!finishing && !change.outcomes)
      return { eval_run_uuid: run, finished_at: before.finishedAt, outcomes: before.outcomes };
    const finishedAt = await writeRunOutcomes(tx, org, run, change);
    const outcomes = change.outcomes ?? before.outcomes;
    await writeAudit(tx, {
      organizationUuid: org,
      actor: actorOf(p),
      action: change.finish ? "eval_run.finished" : "eval_run.outcomes_recorded",
      target: { type: "eval_run", id: run },
      before: { finished_at: before.finishedAt, outcomes: before.outcomes },
      after: { finished_at: finishedAt, outcomes },
    });
    if (change.finish) {
      const figures = (await runFigures(tx, org, [run])).get(run);
      if (figures)
        await enqueueWebhookEvent(tx, { organizationId: org, type: "eval_run.finished", data: figures });
    }
    return { eval_run_uuid: run, finished_at: finishedAt, outcomes };
  });
}

/** A recorded change as the API answers it. */
export const recordedJson = (r: {
  eval_run_uuid: string;
  finished_at: Date | null;
  outcomes: Outcomes | null;
}) => ({
  eval_run_uuid: r.eval_run_uuid,
  finished_at: r.finished_at ? r.finished_at.toISOString() : null,
  outcomes: r.outcomes,
  pass_rate: passRate(r.outcomes),
});

/** A run id as the path takes it (fields.ts), here a repeatable query parameter. */
const runId = EvalRunParamsSchema.shape.eval_run_uuid;

const CompareQuerySchema = z.strictObject({
  eval_run_uuid: z
    .union([runId, z.array(runId)], { error: "eval_run_uuid must be a run id." })
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .refine((v) => new Set(v).size === v.length, { error: "eval_run_uuid has repeats." })
    .refine((v) => v.length >= MIN_COMPARED_RUNS && v.length <= MAX_COMPARED_RUNS, {
      error: `eval_run_uuid must name ${MIN_COMPARED_RUNS} to ${MAX_COMPARED_RUNS} runs.`,
    })
    .meta({
      description: `Repeated, ${MIN_COMPARED_RUNS} to ${MAX_COMPARED_RUNS} runs; the first is the baseline.`,
    }),
});

/** The comparison's runs in the order asked, each with its difference from the first. */
export function comparison(runs: readonly EvalRunFigures[]) {
  const first = runs[0];
  return { runs: runs.map((r) => ({ ...r, difference: differenceFrom(first ?? r, r) })) };
}

/** PUT /v1/eval-runs/{id}/outcomes and GET /v1/eval-runs/compare. */
export const evalRunOutcomeRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.put(
    "/eval-runs/:eval_run_uuid/outcomes",
    {
      config: { auth: "bearer_or_api_key" },
      // Before validation, so both shapes meet one schema.
      preValidation: async (req) => {
        req.body = outcomesAtTopLevel(req.body) as typeof req.body;
      },
      schema: {
        tags,
        summary: "Report a running eval run's outcomes",
        description:
          "Sets the run's test case outcomes (passed, failed, errored: whole numbers from 0 to 1,000,000,000, " +
          "each optional, 0 when omitted) while it runs; a new call replaces them, and finishing with outcomes " +
          'replaces them again. The counts may also be sent at the top level ({"passed": 7}). ' +
          "Audited as eval_run.outcomes_recorded. Bad values answer 400 and change nothing. " +
          "Organization administrators and the workspace's members; a run of another organization, or one never " +
          "started through POST /v1/eval-runs, is a 404.",
        params: EvalRunParamsSchema,
        body: OutcomesBodySchema,
        response: {
          200: json("The run's outcomes", RecordedOutcomesSchema),
          400: failure("The run id or the outcomes are not valid"),
          401: failure("Not signed in"),
          404: failure("No such started run, or the caller is not a member of its workspace"),
        },
      },
    },
    async (req) =>
      recordedJson(
        await recordRunOutcomes(deps, req.principal, req.params.eval_run_uuid, {
          outcomes: req.body.outcomes,
          finish: false,
        }),
      ),
  );

  app.get(
    "/eval-runs/compare",
    {
      config: { auth: "bearer_or_api_key", admin: "compare the organization's eval runs" },
      schema: {
        tags,
        summary: "Compare 2 to 10 eval runs: cost, outcomes and their differences",
        description:
          "Each run's figures over all its events: cost, events, cost by operation, by eval type and by role " +
          "(scoring, the judge's operations, and generation), outcomes, pass rate, cost per passed case, start " +
          "and finish, and the difference of each from the first run named. Organization administrators only; " +
          "a run of another organization (or no such run) is a 404.",
        querystring: CompareQuerySchema,
        response: {
          200: json("The runs, in the order asked", EvalRunComparisonSchema),
          400: failure("Fewer than 2 or more than 10 runs, a repeat, or a bad run id"),
          401: failure("Not signed in"),
          403: failure("Not an organization administrator (members and members' keys)"),
          404: failure("A run is not one of the organization's"),
        },
      },
    },
    async (req) => {
      const ids = req.query.eval_run_uuid;
      const found = await runFigures(deps.readDb ?? deps.db, adminOrg(req).org_id, ids);
      const missing = ids.find((id) => !found.has(id));
      if (missing !== undefined) throw new ApiError("not_found", `Eval run not found: ${missing}.`);
      return comparison(ids.map((id) => found.get(id) as EvalRunFigures));
    },
  );
};
