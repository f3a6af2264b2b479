/**
 * The usage & cost report (GET /v1/usage/report): its vocabulary, limits, query fields, answer and
 * CSV columns. The server validates and documents the call with these schemas; the filters
 * (workspace_uuid, eval_type, operation, modality, ground_truth, jailbreak, search) are the
 * dashboard's own query fields, added by the route.
 */
import { z } from "zod";
import { OutcomesSchema } from "./eval-run-outcomes";
import { pageSizeParam } from "./paging";
import { textCell } from "./usage-csv";
import { MoneySchema } from "./usage-schemas";

/** Bucket widths: UTC hours, days, weeks starting on Sunday (as the dashboard's series), calendar months. */
export const BUCKET_WIDTHS = ["1h", "1d", "1w", "1mo"] as const;
export type BucketWidth = (typeof BUCKET_WIDTHS)[number];

/** The dimensions a report can be grouped by, in the order its rows and CSV columns list them. */
export const REPORT_GROUP_BY = [
  "workspace",
  "eval_type",
  "operation",
  "modality",
  "eval_run",
  "created_by",
  "api_key",
  "price_rule",
] as const;
export type ReportGroupBy = (typeof REPORT_GROUP_BY)[number];

/**
 * What group_by api_key means: usage events are sent by the eval services with an ingestion key and
 * record no customer key, so each event is mapped to the API key that started its eval run
 * (POST /v1/eval-runs with x-api-key). Events of runs started with a bearer token, of runs not
 * started through the API, or without a run, have none.
 */
export const API_KEY_GROUPING =
  "group_by api_key: the API key (its id) that started the event's eval run through POST /v1/eval-runs; " +
  "null: not started with an API key (a bearer token, a run not started through the API, or no run).";

/** What group_by price_rule means: the rule version that priced the events (provenance). */
export const PRICE_RULE_GROUPING =
  "group_by price_rule: the price rule that priced the events (its uuid names one version of the rule), " +
  "its version and unit price; null: price adjustments (sent with their own cost, or price correction lines), which no rule priced.";

export const REPORT_DEFAULT_PAGE_SIZE = 100;
export const REPORT_MAX_PAGE_SIZE = 1_000;
/** The most buckets the period may span in the width asked for (a month in hours is 744). */
export const REPORT_MAX_BUCKETS = 1_000;
/** The most rows one CSV report carries; a larger one is refused before any byte is sent. */
export const REPORT_MAX_CSV_ROWS = 100_000;
/** The period must lie within [REPORT_EARLIEST, REPORT_LATEST]: usage is never older (ingestion refuses it). */
export const REPORT_EARLIEST = "2000-01-01T00:00:00Z";
export const REPORT_LATEST = "2100-01-01T00:00:00Z";

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * An ISO 8601 instant ("2026-03-01T00:00:00Z", with an offset, or a day "2026-03-01" meaning its
 * midnight UTC) as a Date; null when the text is not one or names a day that does not exist.
 */
export function parseInstant(text: string): Date | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = "00", mi = "00", s = "00", frac = "", zone = "Z"] = m;
  const ms = Math.floor(Number(`0${frac || ".0"}`) * 1000);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const local = new Date(0);
  local.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  local.setUTCHours(Number(h), Number(mi), Number(s), ms);
  const utc = local.getTime();
  // The setters roll 2026-02-30 over to March and 24:00 to the next day: such texts are refused.
  if (
    local.getUTCFullYear() !== Number(y) ||
    local.getUTCMonth() !== Number(mo) - 1 ||
    local.getUTCDate() !== Number(d) ||
    local.getUTCHours() !== Number(h) ||
    local.getUTCMinutes() !== Number(mi) ||
    local.getUTCSeconds() !== Number(s)
  )
    return null;
  const sign = zone.startsWith("-") ? -1 : 1;
  const offset = zone === "Z" ? 0 : sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
  if (zone !== "Z" && (Number(zone.slice(4)) > 59 || Math.abs(offset) > 18 * 60)) return null;
  return new Date(utc - offset * 60_000);
}

const instant = (name: string) =>
  z
    .string({
      error: `${name} must be an ISO 8601 date-time with Z or an offset (2026-03-01T00:00:00Z) or a day (2026-03-01).`,
    })
    .transform((text, ctx) => {
      const d = parseInstant(text.trim());
      if (!d) {
        ctx.addIssue({
          code: "custom",
          message: `${name} must be an ISO 8601 date-time with Z or an offset (2026-03-01T00:00:00Z) or a day (2026-03-01).`,
        });
        return z.NEVER;
      }
      if (d.getTime() < Date.parse(REPORT_EARLIEST) || d.getTime() > Date.parse(REPORT_LATEST)) {
        ctx.addIssue({
          code: "custom",
          message: `${name} must be between ${REPORT_EARLIEST} and ${REPORT_LATEST}.`,
        });
        return z.NEVER;
      }
      return d;
    });

const GROUP_BY_ERROR = `group_by must be a list of ${REPORT_GROUP_BY.join(", ")}.`;

/** group_by: repeated, comma-separated, or both; each value once, in the canonical order. */
const groupBy = z
  .union([z.string(), z.array(z.string())], { error: GROUP_BY_ERROR })
  .optional()
  .transform((v, ctx) => {
    const items = (v === undefined ? [] : Array.isArray(v) ? v : [v])
      .flatMap((x) => x.split(","))
      .map((x) => x.trim())
      .filter((x) => x !== "");
    for (const x of items) {
      if (!(REPORT_GROUP_BY as readonly string[]).includes(x)) {
        ctx.addIssue({ code: "custom", message: `${GROUP_BY_ERROR} "${x.slice(0, 40)}" is not one.` });
        return z.NEVER;
      }
    }
    return REPORT_GROUP_BY.filter((g) => items.includes(g));
  });

/** The report's own query fields (the route adds the dashboard's filters). */
export const reportQueryShape = {
  starting_at: instant("starting_at").meta({
    description:
      "Start of the period, inclusive: an ISO 8601 date-time (2026-03-01T00:00:00Z, or with an offset) " +
      "or a day (2026-03-01, its midnight UTC).",
  }),
  ending_at: instant("ending_at").optional().meta({
    description:
      "End of the period, exclusive. Default: now, rounded up to the next whole hour (1h) or UTC day.",
  }),
  bucket_width: z
    .enum(BUCKET_WIDTHS, { error: `bucket_width must be one of ${BUCKET_WIDTHS.join(", ")}.` })
    .default("1d")
    .meta({
      description: "1h, 1d, 1w (weeks start on Sunday) or 1mo (calendar months); all UTC. Default 1d.",
    }),
  group_by: groupBy.meta({
    description: `Repeatable or comma-separated: any of ${REPORT_GROUP_BY.join(", ")}. None: one row per bucket.`,
  }),
  page_size: pageSizeParam(REPORT_MAX_PAGE_SIZE, REPORT_DEFAULT_PAGE_SIZE).meta({
    description: `Rows per page, at most ${REPORT_MAX_PAGE_SIZE} (default ${REPORT_DEFAULT_PAGE_SIZE}).`,
  }),
  page: z
    .string({ error: "page must be a cursor (next_page of the previous answer)." })
    // A cursor carries the last row's bucket and group_by values (eight of them at most).
    .max(12_000, { error: "page must be a cursor (next_page of the previous answer)." })
    .optional()
    .meta({
      description: "The next_page cursor of the previous answer; the other parameters must be the same.",
    }),
};

const sums = {
  events: z.int().meta({ description: "Usage events counted." }),
  count: z.int().meta({ description: "Sum of the events' quantities." }),
  cost: MoneySchema,
};

export const UsageReportRowSchema = z
  .object({
    starting_at: z.iso.datetime().meta({
      description: "Start of the bucket, or of the period when that is later (the first bucket).",
    }),
    ending_at: z.iso.datetime().meta({
      description: "End of the bucket (exclusive), or of the period when that is earlier (the last bucket).",
    }),
    workspace_uuid: z
      .uuid()
      .nullable()
      .optional()
      .meta({ description: "group_by workspace; null: no workspace." }),
    workspace_name: z
      .string()
      .optional()
      .meta({ description: 'group_by workspace: its name, "No Workspace" or "Unknown Workspace".' }),
    eval_type: z
      .string()
      .optional()
      .meta({ description: "group_by eval_type: the eval type group (accuracy includes hallucination)." }),
    operation: z.string().optional().meta({ description: "group_by operation." }),
    modality: z.string().optional().meta({ description: 'group_by modality, lower-case; "" when none.' }),
    eval_run_uuid: z.string().nullable().optional().meta({ description: "group_by eval_run; null: none." }),
    created_by: z.string().nullable().optional().meta({ description: "group_by created_by; null: none." }),
    api_key_id: z.string().nullable().optional().meta({ description: API_KEY_GROUPING }),
    price_rule_uuid: z.uuid().nullable().optional().meta({ description: PRICE_RULE_GROUPING }),
    price_rule_version: z
      .int()
      .nullable()
      .optional()
      .meta({ description: "group_by price_rule: the rule's version within its lineage." }),
    unit_price: MoneySchema.nullable()
      .optional()
      .meta({ description: "group_by price_rule: the rule's unit price (USD per unit)." }),
    outcomes: OutcomesSchema.nullable().optional().meta({
      description: "group_by eval_run: the run's outcomes as last reported; null when never reported.",
    }),
    pass_rate: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "group_by eval_run: the run's pass rate." }),
    cost_per_passed_case: MoneySchema.nullable().optional().meta({
      description: "group_by eval_run: this row's cost ÷ the run's passed cases; null when none passed.",
    }),
    ...sums,
  })
  .meta({ id: "UsageReportRow" });
export type UsageReportRow = z.infer<typeof UsageReportRowSchema>;

export const UsageReportPageSchema = z
  .object({
    starting_at: z.iso.datetime(),
    ending_at: z.iso.datetime(),
    bucket_width: z.enum(BUCKET_WIDTHS),
    group_by: z.array(z.enum(REPORT_GROUP_BY)),
    data: z.array(UsageReportRowSchema).meta({
      description: "Rows with usage only, by bucket, then by the group_by values.",
    }),
    totals: z.object(sums).meta({ description: "The sums over every row of the report, all pages." }),
    total_rows: z.int().meta({ description: "Rows in the whole report." }),
    has_more: z.boolean(),
    next_page: z
      .string()
      .nullable()
      .meta({ description: "Pass as page for the next rows; null on the last page." }),
  })
  .meta({ id: "UsageReportPage" });
export type UsageReportPage = z.infer<typeof UsageReportPageSchema>;

type Column = { header: string; groupBy?: ReportGroupBy; cell: (r: UsageReportRow) => string };

/** Every CSV column: the bucket, then the columns of each group_by asked for, then the sums. */
export const REPORT_CSV_COLUMNS: readonly Column[] = [
  { header: "Starting At", cell: (r) => r.starting_at },
  { header: "Ending At", cell: (r) => r.ending_at },
  { header: "Workspace ID", groupBy: "workspace", cell: (r) => r.workspace_uuid ?? "" },
  { header: "Workspace", groupBy: "workspace", cell: (r) => textCell(r.workspace_name ?? null) },
  { header: "Eval Type", groupBy: "eval_type", cell: (r) => textCell(r.eval_type ?? null) },
  { header: "Operation", groupBy: "operation", cell: (r) => textCell(r.operation ?? null) },
  { header: "Modality", groupBy: "modality", cell: (r) => textCell(r.modality ?? null) },
  { header: "Run ID", groupBy: "eval_run", cell: (r) => textCell(r.eval_run_uuid ?? null) },
  { header: "Created By", groupBy: "created_by", cell: (r) => textCell(r.created_by ?? null) },
  { header: "API Key ID", groupBy: "api_key", cell: (r) => textCell(r.api_key_id ?? null) },
  { header: "Price Rule ID", groupBy: "price_rule", cell: (r) => r.price_rule_uuid ?? "" },
  {
    header: "Price Rule Version",
    groupBy: "price_rule",
    cell: (r) => (r.price_rule_version == null ? "" : String(r.price_rule_version)),
  },
  { header: "Unit Price", groupBy: "price_rule", cell: (r) => r.unit_price ?? "" },
  { header: "Events", cell: (r) => String(r.events) },
  { header: "Count", cell: (r) => String(r.count) },
  { header: "Cost", cell: (r) => r.cost },
];

const columnsFor = (groups: readonly ReportGroupBy[]) =>
  REPORT_CSV_COLUMNS.filter((c) => !c.groupBy || groups.includes(c.groupBy));

/** The header row of a report grouped by `groups`. */
export const reportCsvHeaders = (groups: readonly ReportGroupBy[]): string[] =>
  columnsFor(groups).map((c) => c.header);

/** One row's cells, in the header's order (quoting is the CSV writer's job). */
export const reportCsvCells = (r: UsageReportRow, groups: readonly ReportGroupBy[]): string[] =>
  columnsFor(groups).map((c) => c.cell(r));
