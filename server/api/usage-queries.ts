import { Readable } from "node:stream";
import { z } from "zod";
import { type Cycle, currentCycle, cycleOf, ensureCycles } from "../metering/cycles";
import type { UsageFilters } from "../metering/filters";
import { MAX_SERIES_BUCKETS, SeriesTooLong, usageSeries, usageSummary } from "../metering/usage-aggregates";
import { csvLines, EXPORT_BYTES_PER_SECOND, MAX_EXPORT_ROWS } from "../metering/usage-csv";
import { recordsPage, SORT_KEYS, type SortKey } from "../metering/usage-records";
import type { Db } from "../platform/database";
import { ApiError } from "../platform/errors";
import { requireAdmin } from "./access";
import type { Principal } from "./principal";
import type { Router } from "./route";
import { ErrorSchema } from "./schemas";

const e = (description: string) => ({ description, schema: ErrorSchema });

/** A query parameter that may be given once or repeated: always a list, blanks dropped. */
const repeatable = (field: string, item: z.ZodType<string>) =>
  z
    .union([item, z.array(item)], { error: `${field} must be a string.` })
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));

const label = (field: string) =>
  z
    .string({ error: `${field} must be a string.` })
    .trim()
    .max(200, { error: `${field} must be at most 200 characters.` });

const filterShape = {
  billing_cycle_uuid: z
    .uuid({ error: "billing_cycle_uuid must be a UUID." })
    .optional()
    .meta({ description: "Default: the current billing cycle." }),
  workspace_uuid: repeatable("workspace_uuid", z.uuid({ error: "workspace_uuid must be a UUID." })).meta({
    description: "Repeatable. Usage without a workspace stays visible.",
  }),
  eval_type: repeatable("eval_type", label("eval_type")).meta({ description: "Repeatable." }),
  operation: repeatable("operation", label("operation")).meta({ description: "Repeatable." }),
  modality: repeatable("modality", label("modality")).meta({
    description: "Repeatable, case-insensitive. Usage without a modality stays visible.",
  }),
  ground_truth: z.enum(["with", "without"], { error: "ground_truth must be with or without." }).optional(),
  jailbreak: z.enum(["only", "non"], { error: "jailbreak must be only or non." }).optional(),
  search: z
    .string({ error: "search must be a string." })
    .trim()
    .max(200, { error: "search must be at most 200 characters." })
    .optional()
    .meta({ description: "Case-insensitive substring over the records' text and number columns." }),
};

type FilterQuery = z.output<z.ZodObject<typeof filterShape>>;

function filtersOf(q: FilterQuery): UsageFilters {
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
  };
}

const FilterQuerySchema = z.strictObject(filterShape);

const sortValues = Object.keys(SORT_KEYS).flatMap((k) => [k, `-${k}`]);

const RecordsQuerySchema = z.strictObject({
  ...filterShape,
  page: z.coerce
    .number({ error: "page must be a whole number." })
    .int({ error: "page must be a whole number." })
    .min(1, { error: "page must be at least 1." })
    .max(1_000_000, { error: "page is too large." })
    .default(1),
  page_size: z.coerce
    .number({ error: "page_size must be a whole number." })
    .int({ error: "page_size must be a whole number." })
    .min(1, { error: "page_size must be at least 1." })
    .max(500, { error: "page_size must be at most 500." })
    .default(10),
  sort: z
    .string()
    .refine((v) => sortValues.includes(v), { error: `sort must be one of ${sortValues.join(", ")}.` })
    .default("-date")
    .meta({ description: "A column, descending with a leading '-'. Default -date (newest first)." }),
});

const SeriesQuerySchema = z.strictObject({
  ...filterShape,
  grouping: z
    .enum(["daily", "weekly", "monthly"], { error: "grouping must be daily, weekly or monthly." })
    .default("daily"),
});

const money = z.string().meta({ description: 'USD as an exact decimal string, e.g. "12.34" or "0.0125".' });
const sums = { events: z.int(), count: z.int().meta({ description: "Sum of quantities." }), cost: money };

export const UsageRecordSchema = z
  .object({
    usage_event_uuid: z.uuid(),
    date: z.iso.datetime(),
    name: z.string().nullable(),
    operation: z.string(),
    eval_type: z.string(),
    created_by: z.string().nullable(),
    quantity: z.int(),
    unit_price: money,
    cost: money,
    eval_uuid: z.string().nullable(),
    eval_run_uuid: z.string().nullable(),
    workspace_uuid: z.uuid().nullable(),
    workspace_name: z.string().meta({ description: 'The workspace\'s name, else "Unknown Workspace".' }),
    notes: z.string().nullable().meta({ description: "Price adjustment note." }),
    price_rule_uuid: z.uuid().nullable(),
    rule_metric: z.string(),
    modality: z.string().nullable(),
    is_jailbreak: z.boolean(),
    has_ground_truth: z.boolean(),
  })
  .meta({ id: "UsageRecord" });

const RecordsPageSchema = z
  .object({ records: z.array(UsageRecordSchema), total: z.int(), page: z.int(), page_size: z.int() })
  .meta({ id: "UsageRecordsPage" });

const adjustmentSums = z
  .object(sums)
  .meta({ description: "The part of this row's sums that is credits and other price adjustments." });
const bucketAdjustments = z
  .object({ events: z.int(), count: z.int(), price: money })
  .meta({ description: "The part of this bucket's sums that is credits and other price adjustments." });

const SummarySchema = z
  .object({
    billing_cycle_uuid: z.uuid(),
    data_as_of: z.iso.datetime(),
    totals: z.object(sums),
    adjustments: z.object(sums).meta({
      description:
        "Credits and other price adjustments (events with an explicit cost) included in totals: usage alone is totals minus adjustments.",
    }),
    credits: z.object(sums).meta({ description: "The adjustments with a negative cost." }),
    charges: z.object(sums).meta({ description: "The adjustments with a positive cost." }),
    by_operation: z.array(
      z.object({ operation: z.string(), rule_metric: z.string(), ...sums, adjustments: adjustmentSums }),
    ),
    by_workspace: z.array(
      z.object({
        workspace_uuid: z.uuid().nullable().meta({ description: 'null: the "No Workspace" row.' }),
        workspace_name: z.string(),
        ...sums,
        adjustments: adjustmentSums,
      }),
    ),
    by_eval_type: z.array(z.object({ eval_type: z.string(), ...sums, adjustments: adjustmentSums })),
    filter_options: z.object({
      eval_types: z.array(z.string()),
      operations: z.array(z.string()),
      modalities: z.array(z.string()),
      workspaces: z.array(z.object({ workspace_uuid: z.uuid(), workspace_name: z.string() })),
    }),
  })
  .meta({ id: "UsageSummary" });

const SeriesSchema = z
  .object({
    billing_cycle_uuid: z.uuid(),
    grouping: z.enum(["daily", "weekly", "monthly"]),
    buckets: z.array(
      z.object({
        date: z.string().meta({ description: "First day of the bucket, YYYY-MM-DD (UTC)." }),
        events: z.int(),
        total_count: z.int(),
        total_price: money,
        adjustments: bucketAdjustments,
        eval_types: z.array(
          z.object({
            eval_type: z.string(),
            events: z.int(),
            count: z.int(),
            price: money,
            adjustments: bucketAdjustments,
          }),
        ),
      }),
    ),
  })
  .meta({ id: "UsageSeries" });

/**
 * Usage is the bill: only organization administrators (Admin or Owner) read it, as the Billing &
 * Usage page and billingcycles. The credential may be a bearer token or an API key, like the
 * other administrator calls (workspaces, members): an administrator's personal key, or an
 * organization key (created by an administrator; it acts with its creator's current role).
 * Members, and members' personal keys, get 403.
 */
const requireUsageReader = (p: Principal) => requireAdmin(p, "read the organization's usage");

/** At most this many exports run at once per organization (in each API process). */
export const MAX_CONCURRENT_EXPORTS = 2;

const WHO =
  " Organization administrators only (Admin or Owner), with a bearer token, an administrator's " +
  "personal API key or an organization API key; members and their keys get 403.";

async function cycleFor(db: Db, organizationUuid: string, uuid: string | undefined): Promise<Cycle> {
  const cycles = await ensureCycles(db, organizationUuid);
  const cycle = uuid ? cycleOf(cycles, uuid) : currentCycle(cycles);
  if (!cycle) throw new ApiError(404, "not_found", "Billing cycle not found.");
  return cycle;
}

const common = {
  tag: "Usage",
  auth: "bearer_or_api_key" as const,
  errors: {
    400: e("A query parameter is not valid"),
    401: e("Not signed in"),
    403: e("Not an organization administrator (members and members' keys)"),
    404: e("No such billing cycle in the organization"),
  },
};

/** GET /v1/usage/ and /v1/usage/records, /summary, /series and /export.csv: the billing dashboard's usage views. */
export function registerUsageQueries(
  router: Router,
  deps: { db: Db; exportLimits?: { maxRows?: number; bytesPerSecond?: number } },
) {
  const { db } = deps;
  /** Exports in progress per organization. */
  const exporting = new Map<string, number>();

  /** One page of the cycle's filtered, sorted records: /v1/usage/records and /v1/usage/ (spec §7). */
  const recordsRoute = (path: string, aliases: string[], summary: string) =>
    router.route({
      method: "GET",
      path,
      aliases,
      tag: common.tag,
      summary,
      description:
        "Filtered, sorted and paged server-side (page_size at most 500); cost and unit price are exact " +
        `decimal strings.${WHO}`,
      auth: common.auth,
      query: RecordsQuerySchema,
      responses: { 200: { description: "One page of records", schema: RecordsPageSchema }, ...common.errors },
      async handler({ principal, query }) {
        const org = requireUsageReader(principal);
        const cycle = await cycleFor(db, org.org_id, query.billing_cycle_uuid);
        const descending = query.sort.startsWith("-");
        const sort = (descending ? query.sort.slice(1) : query.sort) as SortKey;
        const { records, total } = await recordsPage(db, cycle, filtersOf(query), {
          sort,
          descending,
          page: query.page,
          pageSize: query.page_size,
        });
        return { records, total, page: query.page, page_size: query.page_size };
      },
    });

  recordsRoute("/v1/usage/records", [], "Page through usage records");
  recordsRoute(
    "/v1/usage/",
    ["/v1/usage"],
    "List the organization's usage records of a billing cycle (same filters, paging and sort as /v1/usage/records)",
  );

  router.route({
    method: "GET",
    path: "/v1/usage/summary",
    tag: common.tag,
    summary: "Usage summary of a billing cycle",
    description:
      "Count and cost per operation, top 6 workspaces (plus a No Workspace row), top 5 eval types, " +
      "totals, and the filter options present in the cycle. Read from the daily rollup unless a " +
      `search text is given.${WHO}`,
    auth: common.auth,
    query: FilterQuerySchema,
    responses: { 200: { description: "The summary", schema: SummarySchema }, ...common.errors },
    async handler({ principal, query }) {
      const org = requireUsageReader(principal);
      const cycle = await cycleFor(db, org.org_id, query.billing_cycle_uuid);
      return usageSummary(db, cycle, filtersOf(query));
    },
  });

  router.route({
    method: "GET",
    path: "/v1/usage/series",
    tag: common.tag,
    summary: "Cost and usage over time",
    description:
      "Buckets by UTC day, week (starting Sunday) or month (starting on the 1st), over the whole " +
      `billing cycle. At most ${MAX_SERIES_BUCKETS.toLocaleString("en-US")} buckets: a cycle spanning more ` +
      `in the grouping asked for answers 400 (series_too_long); use a coarser grouping.${WHO}`,
    auth: common.auth,
    query: SeriesQuerySchema,
    responses: {
      200: { description: "The buckets", schema: SeriesSchema },
      ...common.errors,
      400: e(`A query parameter is not valid, or the series would exceed ${MAX_SERIES_BUCKETS} buckets`),
    },
    async handler({ principal, query }) {
      const org = requireUsageReader(principal);
      const cycle = await cycleFor(db, org.org_id, query.billing_cycle_uuid);
      try {
        return await usageSeries(db, cycle, filtersOf(query), query.grouping);
      } catch (err) {
        if (err instanceof SeriesTooLong) throw new ApiError(400, "series_too_long", err.message);
        throw err;
      }
    },
  });

  router.route({
    method: "GET",
    path: "/v1/usage/export.csv",
    tag: common.tag,
    summary: "Export usage records as CSV",
    description:
      "Streams every filtered record, newest first, with the columns Date, Eval, Operation, Eval Type, " +
      "Eval ID, Run ID, Workspace, Created By, Quantity, Unit Price, Cost, Price Adjustment Note. " +
      `At most ${MAX_EXPORT_ROWS.toLocaleString("en-US")} records per export, sent at up to ` +
      `${EXPORT_BYTES_PER_SECOND / 1024 / 1024} MiB/s, and at most ${MAX_CONCURRENT_EXPORTS} exports of ` +
      "an organization at a time (429 with Retry-After). A failure after the first bytes (a larger " +
      "result, the database going away) breaks the transfer: the response ends without its final " +
      `chunk, which clients see as an error, never as a complete file.${WHO}`,
    auth: common.auth,
    query: FilterQuerySchema,
    responses: {
      200: { description: "text/csv" },
      ...common.errors,
      429: e("Too many exports of the organization at once, or a rate limit"),
    },
    async handler({ principal, query, reply }) {
      const org = requireUsageReader(principal);
      const cycle = await cycleFor(db, org.org_id, query.billing_cycle_uuid);
      const running = exporting.get(org.org_id) ?? 0;
      if (running >= MAX_CONCURRENT_EXPORTS) {
        reply.header("retry-after", "10");
        throw new ApiError(
          429,
          "too_many_exports",
          `At most ${MAX_CONCURRENT_EXPORTS} exports of an organization run at a time. Try again when one has finished.`,
        );
      }
      exporting.set(org.org_id, running + 1);
      const stream = Readable.from(csvLines(db, cycle, filtersOf(query), deps.exportLimits));
      stream.once("close", () => {
        const n = (exporting.get(org.org_id) ?? 1) - 1;
        if (n > 0) exporting.set(org.org_id, n);
        else exporting.delete(org.org_id);
      });
      const day = new Date().toISOString().slice(0, 10);
      reply
        .header("content-type", "text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="usage_data_${day}.csv"`);
      return reply.send(stream);
    },
  });
}
