import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { archiveMonth, isMonth, listMonths, restoreMonth } from "../../metering/shared/partitions";
import { eventsRefusal } from "../../metering/shared/partitions-cli";
import { ApiError } from "../../platform/errors";
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

const ArchiveResultSchema = z
  .object({
    month: z.string(),
    status: z.enum(["archived", "already_archived"]),
    table: z.string().meta({ description: "Where the month's events now are." }),
    rows: z.int().min(0).nullable().meta({ description: "Events detached now; null if already archived." }),
  })
  .meta({ id: "EventPartitionArchived" });

const RestoreResultSchema = z
  .object({ month: z.string(), status: z.enum(["restored", "not_archived"]) })
  .meta({ id: "EventPartitionRestored" });

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

  app.post(
    "/operator/event-partitions/:month/archive",
    {
      config,
      schema: {
        tags,
        summary: "Archive a month of usage events",
        description:
          "Provider operators only. Detaches the month's partition (its events leave the records and " +
          "the export; the bill keeps them) into usage_events_archive_yYYYYmMM. Refused (409) while an " +
          "organization with events in the month has its billing cycle there open.",
        params: MonthParamsSchema,
        response: {
          200: json("The month, archived", ArchiveResultSchema),
          ...OPERATOR_ERRORS,
          404: failure("No partition holds the month"),
          409: failure("Billing still open in the month"),
        },
      },
    },
    async (req) => {
      const month = req.params.month;
      const r = await archiveMonth(deps.db, month, actorOf(req));
      if (r.status === "not_found") throw new ApiError("not_found", eventsRefusal.notFound(month));
      if (r.status === "refused") throw new ApiError("conflict", eventsRefusal.refused(month, r.refusals));
      if (r.status === "archived") return { month, status: r.status, table: r.table, rows: r.rows };
      const found = (await listMonths(deps.db)).find((m) => m.month === month);
      return { month, status: r.status, table: found?.table ?? "", rows: null };
    },
  );

  app.post(
    "/operator/event-partitions/:month/restore",
    {
      config,
      schema: {
        tags,
        summary: "Restore an archived month",
        description: "Provider operators only. Attaches the archived table again while it exists.",
        params: MonthParamsSchema,
        response: {
          200: json("The month, attached", RestoreResultSchema),
          ...OPERATOR_ERRORS,
          404: failure("No archived table holds the month"),
        },
      },
    },
    async (req) => {
      const month = req.params.month;
      const r = await restoreMonth(deps.db, month, actorOf(req));
      if (r.status === "not_found") throw new ApiError("not_found", eventsRefusal.noArchive(month));
      return { month, status: r.status };
    },
  );
};
