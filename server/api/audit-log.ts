import { Readable } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  AUDIT_ACTION_NAMES,
  AUDIT_ACTIONS,
  AUDIT_DEFAULT_PAGE_SIZE,
  AUDIT_MAX_PAGE_SIZE,
  AUDIT_TARGET_TYPES,
} from "../../contract/audit-log";
import { AUDIT_CSV_HEADERS, AUDIT_MAX_EXPORT_ROWS } from "../../contract/audit-log-csv";
import { AuditLogPageSchema } from "../../contract/audit-log-schema";
import { pageNumberParam, pageSizeParam } from "../../contract/paging";
import type { Db } from "../platform/database";
import { ApiError } from "../platform/errors";
import { auditCsvLines, auditPage } from "./audit-log-reads";
import { csvFormatParam, jsonOrCsvResponse, sendCsv, wantsCsv } from "./csv-reply";
import { queryTextField } from "./fields";
import { adminOrg } from "./route-hooks";
import { ADMIN_ERRORS, ADMINS_ONLY, failure } from "./schemas";

/** A day as billing cycles give them: YYYY-MM-DD, midnight UTC. */
const day = (name: string) =>
  z
    .string({ error: `${name} must be a date, YYYY-MM-DD.` })
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: `${name} must be a date, YYYY-MM-DD.` })
    .refine(
      (v) => {
        const d = new Date(`${v}T00:00:00Z`);
        return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v);
      },
      {
        error: `${name} is not a calendar date.`,
      },
    )
    .optional();

const actions = z
  .union([z.enum(AUDIT_ACTION_NAMES), z.array(z.enum(AUDIT_ACTION_NAMES))], {
    error: `action must be one of ${AUDIT_ACTION_NAMES.join(", ")}.`,
  })
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? [...new Set(v)] : [v]));

const QuerySchema = z.strictObject({
  actor: queryTextField("actor", 254)
    .optional()
    .meta({ description: "A user id, or an email (any case): the entries that user made." }),
  action: actions.meta({ description: "Repeatable: entries with any of these actions." }),
  target_type: z
    .enum(AUDIT_TARGET_TYPES, { error: `target_type must be one of ${AUDIT_TARGET_TYPES.join(", ")}.` })
    .optional(),
  target_id: queryTextField("target_id", 200)
    .optional()
    .meta({ description: "A workspace uuid, user id, API key id, invitation email…" }),
  starting_at: day("starting_at").meta({ description: "YYYY-MM-DD: from midnight UTC of this day." }),
  ending_at: day("ending_at").meta({ description: "YYYY-MM-DD, exclusive: until midnight UTC of this day." }),
  page: pageNumberParam(),
  page_size: pageSizeParam(AUDIT_MAX_PAGE_SIZE, AUDIT_DEFAULT_PAGE_SIZE),
  format: csvFormatParam,
});

type Query = z.output<typeof QuerySchema>;

function filtersOf(q: Query) {
  const from = q.starting_at ? new Date(`${q.starting_at}T00:00:00Z`) : undefined;
  const to = q.ending_at ? new Date(`${q.ending_at}T00:00:00Z`) : undefined;
  if (from && to && to <= from)
    throw new ApiError("invalid_request", "ending_at must be after starting_at (it is exclusive).");
  return {
    actor: q.actor || undefined,
    actions: q.action,
    targetType: q.target_type,
    targetId: q.target_id || undefined,
    from,
    to,
  };
}

const ACTION_LIST = Object.entries(AUDIT_ACTIONS)
  .map(([name, meaning]) => `${name} (${meaning.replace(/\.$/, "")})`)
  .join("; ");

/** GET /v1/audit-log: the organization's audit trail, for its administrators. */
export const auditLogRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get(
    "/audit-log",
    {
      config: { auth: "bearer_or_api_key", admin: "read the audit log" },
      schema: {
        tags: ["Audit log"],
        summary: "Read the organization's audit log",
        description:
          "Every administrative and security action in the organization, newest first: who (actor, " +
          "and the provider operator when the session was an impersonation), from where (console, " +
          "api_key, cli), what (action), on what (target) and the target's relevant fields before and " +
          `after. Pages of at most ${AUDIT_MAX_PAGE_SIZE} entries with the filtered total; with Accept: text/csv ` +
          `or format=csv, every filtered entry streamed as CSV (columns ${AUDIT_CSV_HEADERS.join(", ")}; ` +
          `at most ${AUDIT_MAX_EXPORT_ROWS.toLocaleString("en-US")} entries, a larger export breaks off ` +
          "as a failed transfer). The log is append-only; entries older than the deployment's " +
          `retention (AUDIT_RETENTION_DAYS) are purged. Actions: ${ACTION_LIST}. ${ADMINS_ONLY}`,
        querystring: QuerySchema,
        response: {
          200: jsonOrCsvResponse("One page of entries, or the CSV export", AuditLogPageSchema),
          400: failure("A query parameter is not valid"),
          ...ADMIN_ERRORS,
        },
      },
    },
    async (req, reply) => {
      const org = adminOrg(req);
      const filters = filtersOf(req.query);
      if (wantsCsv(req.query.format, req.headers.accept)) {
        const stamp = new Date().toISOString().slice(0, 10);
        return sendCsv(
          reply,
          `audit_log_${stamp}.csv`,
          Readable.from(auditCsvLines(db, org.org_id, filters)),
        );
      }
      return auditPage(db, org.org_id, filters, { page: req.query.page, pageSize: req.query.page_size });
    },
  );
};
