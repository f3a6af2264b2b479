import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { rerateJson } from "../../metering/pricing/price-change";
import { rerateResultOf, rerateRuleOf } from "../../metering/pricing/rerate-job";
import { partitionOutcomeOf } from "../../metering/shared/partitions-job";
import { ApiError } from "../../platform/errors";
import { getJob, type JobRow, listJobs } from "../../platform/jobs";
import type { OperatorRouteDeps } from "../route-deps";
import { failure, json } from "../schemas";
import { OPERATOR_ERRORS } from "./common";
import { installOperatorGuard, OPERATOR_ROUTE_CONFIG, OPERATOR_TAGS } from "./guard";
import { ReratingSchema } from "./price-schemas";

const JOB_STATES = ["queued", "running", "done", "failed"] as const;
const JOB_UUID_ERROR = "job_uuid must be a job's uuid.";

export const JobSchema = z
  .object({
    job_uuid: z.uuid(),
    kind: z.string().meta({
      description:
        'What the job does: "price-rerate" (re-rating after a price change), "partition-archive", "partition-restore", …',
    }),
    organization_uuid: z
      .string()
      .nullable()
      .meta({ description: "The organization it works for; null: every one." }),
    state: z.enum(JOB_STATES).meta({
      description:
        "queued (waiting its turn: an organization's price changes re-rate one after the other), running, done or failed.",
    }),
    done: z.int().min(0).meta({ description: "Items done so far (events read, for a re-rating)." }),
    total: z.int().min(0).nullable().meta({ description: "Items in all; null while not yet counted." }),
    created_at: z.iso.datetime(),
    run_after: z.iso
      .datetime()
      .meta({ description: "When a queued job may start (a recurring task's next run is later)." }),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    error: z.string().nullable().meta({ description: "Why it failed; null otherwise." }),
    price_rule_uuid: z.uuid().nullable().meta({ description: "The price rule a re-rating is for." }),
    rerating: ReratingSchema.nullable().meta({ description: "What a re-rating moved, once done." }),
    partition: z
      .object({
        month: z.string(),
        status: z.enum(["archived", "already_archived", "restored", "not_archived"]),
        table: z.string().optional().meta({ description: "Where an archived month's events now are." }),
        rows: z.int().min(0).optional().meta({ description: "Events detached by the archive." }),
      })
      .nullable()
      .meta({ description: "What a partition archive or restore did, once done." }),
  })
  .meta({ id: "Job" });

export const jobJson = (j: JobRow) => {
  const result = rerateResultOf(j);
  return {
    job_uuid: j.id,
    kind: j.kind,
    organization_uuid: j.organizationUuid,
    state: j.state,
    done: j.done,
    total: j.total,
    created_at: j.createdAt.toISOString(),
    run_after: j.runAfter.toISOString(),
    started_at: j.startedAt?.toISOString() ?? null,
    finished_at: j.finishedAt?.toISOString() ?? null,
    error: j.error,
    price_rule_uuid: rerateRuleOf(j),
    rerating: result ? rerateJson(result) : null,
    partition: partitionOutcomeOf(j),
  };
};

const JobParamsSchema = z.strictObject({
  job_uuid: z.uuid({ error: JOB_UUID_ERROR }),
});

const ListQuerySchema = z.strictObject({
  state: z
    .enum(JOB_STATES, { error: 'state must be "queued", "running", "done" or "failed".' })
    .optional()
    .meta({ description: "Only jobs in this state." }),
  limit: z.coerce
    .number({ error: "limit must be a whole number from 1 to 200." })
    .int({ error: "limit must be a whole number from 1 to 200." })
    .min(1, { error: "limit must be a whole number from 1 to 200." })
    .max(200, { error: "limit must be a whole number from 1 to 200." })
    .default(50),
});

const tags = OPERATOR_TAGS;
const config = OPERATOR_ROUTE_CONFIG;

/** /v1/operator/jobs: heavy work run off the request (re-rating after a price change), with its progress. */
export const operatorJobRoutes: FastifyPluginAsyncZod<OperatorRouteDeps> = async (app, deps) => {
  installOperatorGuard(app, deps, "see jobs");

  app.get(
    "/operator/jobs",
    {
      config,
      schema: {
        tags,
        summary: "List recent jobs",
        description: "Provider operators only. The most recent jobs, newest first, with their progress.",
        querystring: ListQuerySchema,
        response: { 200: json("The jobs", z.object({ jobs: z.array(JobSchema) })), ...OPERATOR_ERRORS },
      },
    },
    async (req) => {
      const rows = await listJobs(deps.db, {
        limit: req.query.limit,
        ...(req.query.state ? { state: req.query.state } : {}),
      });
      return { jobs: rows.map(jobJson) };
    },
  );

  app.get(
    "/operator/jobs/:job_uuid",
    {
      config,
      schema: {
        tags,
        summary: "Get a job",
        description:
          "Provider operators only. A job's state and progress (done of total); a finished re-rating says what it moved.",
        params: JobParamsSchema,
        response: { 200: json("The job", JobSchema), ...OPERATOR_ERRORS, 404: failure("No such job") },
      },
    },
    async (req) => {
      const job = await getJob(deps.db, req.params.job_uuid);
      if (!job) throw new ApiError("not_found", `No job ${req.params.job_uuid}.`);
      return jobJson(job);
    },
  );
};
