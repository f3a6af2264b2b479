import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { isMonth, listMonths } from "../../metering/shared/partitions";
import {
  enqueuePartitionJob,
  type PartitionAction,
  partitionJobHandlers,
} from "../../metering/shared/partitions-job";
import type { Actor } from "../../platform/audit";
import { ApiError } from "../../platform/errors";
import { getJob, wakeJobs } from "../../platform/jobs";
import type { OperatorRouteDeps } from "../route-deps";
import { failure, json } from "../schemas";
import { OPERATOR_ERRORS } from "./common";
import { installOperatorGuard, OPERATOR_ROUTE_CONFIG, OPERATOR_TAGS } from "./guard";

const MonthSchema = z
  .object({
    month: z.string().meta({ description: "YYYY-MM (UTC)." }),
    table: z.string().meta({ description: "The table holding the month's events." }),
    archived: z.boolean().meta({ description: "Detached from usage_events (out of every query)." }),
    rows: z.int().min(0).meta({ description: "Estimated row count." }),
    bytes: z.int().min(0).meta({ description: "Size on disk." }),
  })
  .meta({ id: "EventPartition" });

const MonthParamsSchema = z.strictObject({
  month: z
    .string({ error: "month must be a month as YYYY-MM." })
    .refine(isMonth, { error: "month must be a month as YYYY-MM." }),
});

/** A month's archive or restore, queued as a job. */
const PartitionJobSchema = z
  .object({
    month: z.string(),
    job: z
      .object({
        job_uuid: z.uuid().meta({ description: "Follow it with GET /v1/operator/jobs/{job_uuid}." }),
        state: z.enum(["queued", "running", "done", "failed"]),
        total: z.int().min(0).nullable(),
      })
      .meta({ description: "The job doing it; once done, its partition field says what it did." }),
  })
  .meta({ id: "EventPartitionJob" });

const tags = OPERATOR_TAGS;
const config = OPERATOR_ROUTE_CONFIG;

/**
 * /v1/operator/event-partitions: usage_events' monthly partitions, archiving a month whose billing
 * is closed and restoring it, for provider operators (the `events` commands). Audited
 * (event_partition.archived, event_partition.restored).
 */
export const operatorPartitionRoutes: FastifyPluginAsyncZod<OperatorRouteDeps> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "manage usage event partitions");

  app.get(
    "/operator/event-partitions",
    {
      config,
      schema: {
        tags,
        summary: "List usage event months",
        description: "Provider operators only. Every month's table, attached or archived, oldest first.",
        response: { 200: json("The months", z.object({ months: z.array(MonthSchema) })), ...OPERATOR_ERRORS },
      },
    },
    async () => ({ months: await listMonths(deps.db) }),
  );

  /** Checks what can be answered now, queues the job, and answers it (202). */
  const queue = async (action: PartitionAction, month: string, actor: Actor) => {
    const r = await enqueuePartitionJob(deps.db, action, month, actor);
    if (!r.ok) throw new ApiError(r.status === "not_found" ? "not_found" : "conflict", r.refusal);
    const job = await getJob(deps.db, r.jobUuid);
    // At once in this process, not at the serving runner's next poll.
    wakeJobs(deps.db, "partitions", () => ({ handlers: partitionJobHandlers(deps.db), log: app.log }));
    return { month, job: { job_uuid: r.jobUuid, state: job?.state ?? "queued", total: job?.total ?? 1 } };
  };

  app.post(
    "/operator/event-partitions/:month/archive",
    {
      config,
      schema: {
        tags,
        summary: "Archive a month of usage events",
        description:
          "Provider operators only. Queues a job that detaches the month's partition (its events leave " +
          "the records and the export; the bill keeps them) into usage_events_archive_yYYYYmMM, and " +
          "answers at once with the job. Refused (409) while an organization with events in the month " +
          "has its billing cycle there open. Archiving an archived month is a job that finds it so.",
        params: MonthParamsSchema,
        response: {
          202: json("The month's archiving, queued", PartitionJobSchema),
          ...OPERATOR_ERRORS,
          404: failure("No partition holds the month"),
          409: failure("Billing still open in the month"),
        },
      },
    },
    async (req, reply) => reply.status(202).send(await queue("archive", req.params.month, actorOf(req))),
  );

  app.post(
    "/operator/event-partitions/:month/restore",
    {
      config,
      schema: {
        tags,
        summary: "Restore an archived month",
        description:
          "Provider operators only. Queues a job that attaches the archived table again while it exists, " +
          "and answers at once with the job.",
        params: MonthParamsSchema,
        response: {
          202: json("The month's restore, queued", PartitionJobSchema),
          ...OPERATOR_ERRORS,
          404: failure("No archived table holds the month"),
        },
      },
    },
    async (req, reply) => reply.status(202).send(await queue("restore", req.params.month, actorOf(req))),
  );
};
