import { Readable } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  BUCKET_WIDTHS,
  REPORT_EARLIEST,
  REPORT_GROUP_BY,
  REPORT_LATEST,
  REPORT_MAX_BUCKETS,
  REPORT_MAX_CSV_ROWS,
  REPORT_MAX_PAGE_SIZE,
  reportQueryShape,
  UsageReportPageSchema,
} from "../../contract/usage-report";
import { withRunOutcomes } from "../metering/usage/eval-run-outcomes";
import { BadCursor, keyOfCursor, ReportTooLarge, reportCsv, reportPage } from "../metering/usage/report";
import { bucketsSpanned, defaultEnd } from "../metering/usage/report-buckets";
import type { ReportKey } from "../metering/usage/report-sql";
import { type ReportQuery, reportSource } from "../metering/usage/report-sql";
import { workspaceMatches } from "../metering/usage/sql";
import type { Db } from "../platform/database";
import { ApiError } from "../platform/errors";
import { csvFormatParam, jsonOrCsvResponse, sendCsv, wantsCsv } from "./csv-reply";
import { expensiveRead, exportRead } from "./read-gate";
import { adminOrg } from "./route-hooks";
import { ADMIN_ERRORS, ADMINS_ONLY, failure } from "./schemas";
import { filterShape, filtersOf } from "./usage-queries";
import { USAGE_READ_CONFIG, USAGE_TAGS, type UsageReadDeps, usageReadsOf } from "./usage-read-kit";

// The report's period is its own: the dashboard's billing_cycle_uuid is not one of its filters.
const { billing_cycle_uuid: _cycle, ...filters } = filterShape;

const QuerySchema = z.strictObject({ ...reportQueryShape, format: csvFormatParam, ...filters });
type Query = z.output<typeof QuerySchema>;

/** The report a query asks for, its period checked before any usage is read. */
async function reportQuery(db: Db, organizationUuid: string, q: Query): Promise<ReportQuery> {
  const start = q.starting_at;
  const end = q.ending_at ?? defaultEnd(q.bucket_width);
  if (end <= start)
    throw new ApiError("invalid_request", "ending_at must be after starting_at (it is exclusive).");
  const buckets = bucketsSpanned(start, end, q.bucket_width);
  if (buckets > REPORT_MAX_BUCKETS)
    throw new ApiError(
      "invalid_request",
      `The period spans ${buckets.toLocaleString("en-US")} buckets of ${q.bucket_width}; a report holds at most ` +
        `${REPORT_MAX_BUCKETS.toLocaleString("en-US")}. Use a wider bucket_width or a shorter period.`,
    );
  const f = filtersOf({ ...q, billing_cycle_uuid: undefined });
  return {
    organizationUuid,
    start,
    end,
    width: q.bucket_width,
    groupBy: q.group_by,
    filters: f,
    matches: await workspaceMatches(db, organizationUuid, f.search),
  };
}

/** At most this many CSV reports of an organization are computed at once (in each API process). */
export const MAX_CONCURRENT_CSV_REPORTS = 2;

const CSV_REPORT = exportRead("csv_report", MAX_CONCURRENT_CSV_REPORTS, "CSV reports");
const REPORT_PAGE = expensiveRead("report_page");

/** GET /v1/usage/report: usage and cost per time bucket and group_by values, as JSON pages or CSV. */
export const usageReportRoutes: FastifyPluginAsyncZod<
  UsageReadDeps & {
    /** Tests: the rows a CSV report reads at a time. */
    csvLimits?: { batchRows?: number };
  }
> = async (app, deps) => {
  const { db, reads, namesOf } = usageReadsOf(deps);

  app.get(
    "/usage/report",
    {
      config: USAGE_READ_CONFIG,
      schema: {
        tags: USAGE_TAGS,
        summary: "Usage and cost report",
        description:
          "Usage and cost of the period [starting_at, ending_at) per time bucket (bucket_width " +
          `${BUCKET_WIDTHS.join(", ")}; UTC; weeks start on Sunday, months on the 1st) and per group_by ` +
          `values (${REPORT_GROUP_BY.join(", ")}), under the Billing & Usage page's filters. The same ` +
          "engine as the page: the daily rollups when the buckets are days or longer, the period is whole " +
          "UTC days, there is no search or eval run filter and the group_by values are rollup columns (workspace, eval_type, " +
          "operation, modality); the raw events otherwise. Costs are exact decimal strings and add up to the " +
          "page's figures to the micro-dollar. Only buckets with usage have rows; the first and last rows' " +
          "bucket bounds are clipped to the period. Eval types are grouped as on the page (accuracy " +
          "includes hallucination). group_by api_key maps each event to the API key (its id) that started its " +
          "eval run through POST /v1/eval-runs (raw events); null: not started with an API key (a bearer " +
          `token, a run not started through the API, or no run). Limits: the period within ${REPORT_EARLIEST} … ${REPORT_LATEST} and at ` +
          `most ${REPORT_MAX_BUCKETS.toLocaleString("en-US")} buckets; pages of at most ${REPORT_MAX_PAGE_SIZE} ` +
          "rows with an opaque next_page cursor (the last row's place in the report's order, so pages never repeat or skip a row) and the whole report's totals. With Accept: text/csv (or " +
          "format=csv) every row is sent as CSV (Starting At, Ending At, the group_by columns, Events, Count, " +
          `Cost), at most ${REPORT_MAX_CSV_ROWS.toLocaleString("en-US")} rows (more: 400 before any byte), ` +
          `at most ${MAX_CONCURRENT_CSV_REPORTS} at once per organization (429). ${ADMINS_ONLY}`,
        querystring: QuerySchema,
        response: {
          200: jsonOrCsvResponse("One page of rows, or the whole report as CSV", UsageReportPageSchema),
          400: failure(
            "A query parameter is not valid, the period is too long for the bucket width, the cursor is not " +
              "this report's, or the CSV would have too many rows",
          ),
          ...ADMIN_ERRORS,
          429: failure("Too many CSV reports of the organization at once, or a rate limit"),
        },
      },
    },
    async (req, reply) => {
      const org = adminOrg(req).org_id;
      const q = await reportQuery(db, org, req.query);
      req.log.debug({ source: reportSource(q) }, "usage report");
      // A cursor is checked for CSV too (which sends every row and ignores it): a bad one is refused alike.
      let after: ReportKey | null;
      try {
        after = keyOfCursor(q, req.query.page);
      } catch (err) {
        if (err instanceof BadCursor) throw new ApiError("invalid_request", err.message);
        throw err;
      }
      if (!wantsCsv(req.query.format, req.headers.accept)) {
        const release = reads.enter(org, REPORT_PAGE, reply);
        try {
          const page = await reportPage(db, q, after, req.query.page_size, namesOf);
          return q.groupBy.includes("eval_run") ? await withRunOutcomes(db, org, page) : page;
        } finally {
          release();
        }
      }
      const done = reads.enter(org, CSV_REPORT, reply);
      let stream: Readable;
      try {
        const csv = await reportCsv(db, q, namesOf, deps.csvLimits);
        stream = Readable.from(csv.lines);
        // However the response ends (sent, failed, the client gone), the read ends with it.
        stream.once("close", () => void csv.close().finally(done));
      } catch (err) {
        done();
        if (err instanceof ReportTooLarge) throw new ApiError("invalid_request", err.message);
        throw err;
      }
      const day = (d: Date) => d.toISOString().slice(0, 10);
      return sendCsv(reply, `usage_report_${day(q.start)}_${day(q.end)}_${q.width}.csv`, stream);
    },
  );
};
