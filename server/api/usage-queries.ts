import { Readable } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { pageSizeParam, wholeNumberParam } from "../../contract/paging";
import { CSV_DETAILS, CSV_HEADERS, CSV_PRICING_HEADERS, MAX_EXPORT_ROWS } from "../../contract/usage-csv";
import { GROUND_TRUTH_VALUES, GROUPINGS, JAILBREAK_VALUES } from "../../contract/usage-query";
import {
  AwaitingPricingSchema,
  UsageRecordsPageSchema,
  UsageSeriesSchema,
  UsageSummarySchema,
} from "../../contract/usage-schemas";
import { type Cycle, findCycleAtVersion } from "../metering/billing/cycles";
import { awaitingSummary } from "../metering/pricing/awaiting-pricing";
import {
  MAX_SERIES_BUCKETS,
  SeriesTooLong,
  seriesLastDay,
  seriesOf,
  summaryOf,
} from "../metering/usage/answers";
import { createPageDataCache, type PageDataCache, pageDataAt } from "../metering/usage/cache";
import { csvLines, EXPORT_BYTES_PER_SECOND } from "../metering/usage/csv";
import type { UsageFilters } from "../metering/usage/filters";
import { recordsOnPage, SORT_KEYS, type SortKey } from "../metering/usage/records";
import type { Db } from "../platform/database";
import { ApiError } from "../platform/errors";
import { csvResponse, sendCsv } from "./csv-reply";
import { queryTextField, uuidField } from "./fields";
import { expensiveRead, exportRead } from "./read-gate";
import type { RouteApp } from "./route-deps";
import { adminOrg } from "./route-hooks";
import { ADMIN_ERRORS, ADMINS_ONLY, failure, json } from "./schemas";
import { USAGE_READ_CONFIG, USAGE_TAGS, type UsageReadDeps, usageReadsOf } from "./usage-read-kit";

/** A query parameter that may be given once or repeated: always a list, blanks dropped. */
const repeatable = (field: string, item: z.ZodType<string>) =>
  z
    .union([item, z.array(item)], { error: `${field} must be a string.` })
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));

const label = (field: string) => queryTextField(field, 200);

/** The dashboard's filter vocabulary, shared by every usage read (the report too). */
export const filterShape = {
  billing_cycle_uuid: uuidField("billing_cycle_uuid")
    .optional()
    .meta({ description: "Default: the current billing cycle." }),
  workspace_uuid: repeatable("workspace_uuid", uuidField("workspace_uuid")).meta({
    description: "Repeatable. Usage without a workspace stays visible.",
  }),
  eval_type: repeatable("eval_type", label("eval_type")).meta({
    description: "Repeatable. An eval type keeps its whole group: accuracy or hallucination keeps both.",
  }),
  operation: repeatable("operation", label("operation")).meta({ description: "Repeatable." }),
  modality: repeatable("modality", label("modality")).meta({
    description: "Repeatable, case-insensitive. Usage without a modality stays visible.",
  }),
  ground_truth: z.enum(GROUND_TRUTH_VALUES, { error: "ground_truth must be with or without." }).optional(),
  jailbreak: z.enum(JAILBREAK_VALUES, { error: "jailbreak must be only or non." }).optional(),
  search: queryTextField("search", 200)
    .optional()
    .meta({ description: "Case-insensitive substring over the records' text and number columns." }),
  eval_run_uuid: queryTextField("eval_run_uuid", 200)
    .optional()
    .meta({ description: "One eval run's usage only (its exact id, as the events carry it)." }),
  price_rule_uuid: uuidField("price_rule_uuid").optional().meta({
    description:
      "The usage one price rule priced only (its uuid names one version of the rule, as the records' price_rule_uuid).",
  }),
};

type FilterQuery = z.output<z.ZodObject<typeof filterShape>>;

export function filtersOf(q: FilterQuery): UsageFilters {
  const clean = (list: string[], lower = false) =>
    [...new Set(list.map((v) => (lower ? v.toLowerCase() : v)).filter((v) => v !== ""))].sort();
  return {
    workspaceUuids: clean(q.workspace_uuid, true),
    evalTypes: clean(q.eval_type),
    operations: clean(q.operation),
    modalities: clean(q.modality, true),
    groundTruth: q.ground_truth ?? null,
    jailbreak: q.jailbreak ?? null,
    search: q.search ? q.search : null,
    evalRun: q.eval_run_uuid ? q.eval_run_uuid : null,
    priceRule: q.price_rule_uuid ? q.price_rule_uuid.toLowerCase() : null,
  };
}

const FilterQuerySchema = z.strictObject(filterShape);

const sortValues = Object.keys(SORT_KEYS).flatMap((k) => [k, `-${k}`]);

const RecordsQuerySchema = z.strictObject({
  ...filterShape,
  page: wholeNumberParam("page", 1_000_000, "page is too large.").default(1),
  page_size: pageSizeParam(500, 10),
  sort: z
    .string()
    .refine((v) => sortValues.includes(v), { error: `sort must be one of ${sortValues.join(", ")}.` })
    .default("-date")
    .meta({ description: "A column, descending with a leading '-'. Default -date (newest first)." }),
});

/** The export's filters, and whether the pricing details follow the spec's columns. */
const ExportQuerySchema = z.strictObject({
  ...filterShape,
  details: z
    .enum(CSV_DETAILS, { error: "details must be pricing." })
    .optional()
    .meta({
      description:
        "pricing: the spec's columns followed by " +
        `${CSV_PRICING_HEADERS.slice(CSV_HEADERS.length).join(", ")}. Default: the spec's columns only.`,
    }),
});

const SeriesQuerySchema = z.strictObject({
  ...filterShape,
  grouping: z.enum(GROUPINGS, { error: "grouping must be daily, weekly or monthly." }).default("daily"),
});

const config = USAGE_READ_CONFIG;
const tags = USAGE_TAGS;

/** At most this many exports run at once per organization (in each API process). */
export const MAX_CONCURRENT_EXPORTS = 2;

const EXPORT = exportRead("export", MAX_CONCURRENT_EXPORTS, "exports");
const SEARCH = expensiveRead("search");

const WHO = ` ${ADMINS_ONLY}`;

/**
 * The cycle a call reads and the organization's usage version, the page data's cache key, looked
 * up once (one query, before any data); a GET never creates a cycle.
 */
async function cycleFor(
  db: Db,
  organizationUuid: string,
  uuid: string | undefined,
): Promise<{ cycle: Cycle; version: number }> {
  const { cycle, version } = await findCycleAtVersion(db, organizationUuid, uuid);
  if (!cycle) throw new ApiError("not_found", "Billing cycle not found.");
  return { cycle, version };
}

const errors = {
  400: failure("A query parameter is not valid"),
  ...ADMIN_ERRORS,
  404: failure("No such billing cycle in the organization"),
};

type UsageQueryRouteDeps = UsageReadDeps & {
  /** Tests: a smaller row limit, pace or read batch. */
  exportLimits?: { maxRows?: number; bytesPerSecond?: number; batchRows?: number };
  /** The page data cache of this API process (default: one holding up to 200,000 rows). */
  pageCache?: PageDataCache;
};

/** GET /v1/usage/export.csv: every filtered record as CSV, streamed at a bounded pace. */
function exportRoute(app: RouteApp, deps: UsageQueryRouteDeps) {
  const { db, reads } = usageReadsOf(deps);
  app.get(
    "/usage/export.csv",
    {
      config,
      schema: {
        tags,
        summary: "Export usage records as CSV",
        description:
          `Streams every filtered record, newest first, with the columns ${CSV_HEADERS.join(", ")} ` +
          "(with details=pricing, the price rule and late usage columns after them). " +
          `At most ${MAX_EXPORT_ROWS.toLocaleString("en-US")} records per export, sent at up to ` +
          `${EXPORT_BYTES_PER_SECOND / 1024 / 1024} MiB/s, and at most ${MAX_CONCURRENT_EXPORTS} exports of ` +
          "an organization at a time (429 with Retry-After). A failure after the first bytes (a larger " +
          "result, the database going away) breaks the transfer: the response ends without its final " +
          `chunk, which clients see as an error, never as a complete file.${WHO}`,
        querystring: ExportQuerySchema,
        response: {
          // Streamed, never serialized.
          200: csvResponse("The records as CSV"),
          ...errors,
          429: failure("Too many exports of the organization at once, or a rate limit"),
        },
      },
    },
    async (req, reply) => {
      const org = adminOrg(req);
      const { cycle } = await cycleFor(db, org.org_id, req.query.billing_cycle_uuid);
      const release = reads.enter(org.org_id, EXPORT, reply);
      const { details, ...filters } = req.query;
      const stream = Readable.from(
        csvLines(db, cycle, filtersOf(filters), deps.exportLimits, details ?? null),
      );
      stream.once("close", release);
      const day = new Date().toISOString().slice(0, 10);
      return sendCsv(reply, `usage_data_${day}.csv`, stream);
    },
  );
}

/** GET /v1/usage/ and /v1/usage/records, /summary, /series and /export.csv: the billing dashboard's usage views. */
export const usageQueryRoutes: FastifyPluginAsyncZod<UsageQueryRouteDeps> = async (app, deps) => {
  const { db, reads, namesOf } = usageReadsOf(deps);
  const cache = deps.pageCache ?? createPageDataCache();

  /** One page of the cycle's filtered, sorted records: /v1/usage/records and /v1/usage/ (spec §7). */
  const recordsRoute = (url: string, summary: string, hide = false) =>
    app.get(
      url,
      {
        config,
        schema: {
          hide,
          tags,
          summary,
          description:
            "Filtered, sorted and paged server-side (page_size at most 500); cost and unit price are exact " +
            `decimal strings.${WHO}`,
          querystring: RecordsQuerySchema,
          response: { 200: json("One page of records", UsageRecordsPageSchema), ...errors },
        },
      },
      async (req, reply) => {
        const { query } = req;
        const { cycle, version } = await cycleFor(db, adminOrg(req).org_id, query.billing_cycle_uuid);
        // A text search reads the records themselves (trigram index): gated like a report.
        const release = query.search ? reads.enter(cycle.organizationUuid, SEARCH, reply) : () => {};
        const descending = query.sort.startsWith("-");
        const sort = (descending ? query.sort.slice(1) : query.sort) as SortKey;
        const f = filtersOf(query);
        // The total is the page data's event count under the same filters (cached per usage version).
        try {
          const [data, records] = await Promise.all([
            pageDataAt(db, cache, cycle, f, "daily", version),
            recordsOnPage(db, cycle, f, { sort, descending, page: query.page, pageSize: query.page_size }),
          ]);
          const total = data.totals.events;
          return { records, total, page: query.page, page_size: query.page_size };
        } finally {
          release();
        }
      },
    );

  recordsRoute("/usage/records", "Page through usage records");
  const listSummary =
    "List the organization's usage records of a billing cycle (same filters, paging and sort as /v1/usage/records)";
  recordsRoute("/usage/", listSummary);
  // The same without the trailing slash, left out of the document.
  recordsRoute("/usage", listSummary, true);

  app.get(
    "/usage/awaiting-pricing",
    {
      config,
      schema: {
        tags,
        summary: "Usage awaiting pricing",
        description:
          "How many of the organization's usage events were accepted while no price rule matched them, " +
          "and the oldest one's time. They are in no total, chart or bill (not even as $0) until the " +
          `provider sets a price that covers them; then they are priced once and counted.${WHO}`,
        response: {
          200: json("The count", AwaitingPricingSchema),
          400: errors[400],
          401: errors[401],
          403: errors[403],
        },
      },
    },
    async (req) => {
      const s = await awaitingSummary(db, adminOrg(req).org_id);
      return { events: s.events, oldest_occurred_at: s.oldestOccurredAt?.toISOString() ?? null };
    },
  );

  app.get(
    "/usage/summary",
    {
      config,
      schema: {
        tags,
        summary: "Usage summary of a billing cycle",
        description:
          "Count and cost per operation, top 6 workspaces (plus a No Workspace row), top 5 eval types, " +
          "totals, and the filter options present in the cycle. Read from the daily rollup unless a " +
          `search text is given.${WHO}`,
        querystring: FilterQuerySchema,
        response: { 200: json("The summary", UsageSummarySchema), ...errors },
      },
    },
    async (req) => {
      const { cycle, version } = await cycleFor(db, adminOrg(req).org_id, req.query.billing_cycle_uuid);
      const [data, workspaceNames] = await Promise.all([
        pageDataAt(db, cache, cycle, filtersOf(req.query), "daily", version),
        namesOf(cycle.organizationUuid),
      ]);
      return summaryOf(cycle, data, data.options, workspaceNames);
    },
  );

  app.get(
    "/usage/series",
    {
      config,
      schema: {
        tags,
        summary: "Cost and usage over time",
        description:
          "Buckets by UTC day, week (starting Sunday) or month (starting on the 1st), over the whole " +
          `billing cycle. At most ${MAX_SERIES_BUCKETS.toLocaleString("en-US")} buckets: a cycle spanning more ` +
          `in the grouping asked for answers 400 (series_too_long); use a coarser grouping.${WHO}`,
        querystring: SeriesQuerySchema,
        response: {
          200: json("The buckets", UsageSeriesSchema),
          ...errors,
          400: failure(
            `A query parameter is not valid, or the series would exceed ${MAX_SERIES_BUCKETS} buckets`,
          ),
        },
      },
    },
    async (req) => {
      const { cycle, version } = await cycleFor(db, adminOrg(req).org_id, req.query.billing_cycle_uuid);
      const { grouping } = req.query;
      try {
        // Refused before any usage is read when the cycle alone spans too many buckets.
        seriesLastDay(cycle, grouping);
        const data = await pageDataAt(db, cache, cycle, filtersOf(req.query), grouping, version);
        return seriesOf(cycle, data, grouping);
      } catch (err) {
        if (err instanceof SeriesTooLong) throw new ApiError("series_too_long", err.message);
        throw err;
      }
    },
  );

  exportRoute(app, { ...deps, reads });
};
