import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { purgeAuditLog } from "../../platform/audit";
import type { OperatorRouteDeps } from "../route-deps";
import { json } from "../schemas";
import { OPERATOR_ERRORS } from "./common";
import { installOperatorGuard, operatorRoute } from "./guard";

const PurgeResultSchema = z
  .object({
    purged: z.int().min(0).meta({ description: "Entries deleted." }),
    retention_days: z.int().min(1).meta({ description: "AUDIT_RETENTION_DAYS: older entries went." }),
  })
  .meta({ id: "AuditPurge" });

/**
 * POST /v1/operator/audit-log/purge: the retention purge now, for provider operators (the server
 * also runs it daily). The purge records itself (audit_log.purged).
 */
export const operatorAuditRoutes: FastifyPluginAsyncZod<OperatorRouteDeps> = async (app, deps) => {
  const actorOf = installOperatorGuard(app, deps, "purge the audit log");

  app.post(
    "/operator/audit-log/purge",
    operatorRoute({
      summary: "Purge old audit log entries",
      description:
        "Provider operators only. Deletes the entries older than AUDIT_RETENTION_DAYS, as the daily " +
        "purge does, and records that it did.",
      response: { 200: json("What was purged", PurgeResultSchema), ...OPERATOR_ERRORS },
    }),
    async (req) => ({
      purged: await purgeAuditLog(deps.db, deps.auditRetentionDays, actorOf(req)),
      retention_days: deps.auditRetentionDays,
    }),
  );
};
