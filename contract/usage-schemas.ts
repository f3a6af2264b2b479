/**
 * The usage answers of the product API (records, summary, series, filter options): the server
 * validates and documents its responses with these schemas; the console reads the same shapes as
 * types only (`import type`), so zod stays out of the console's bundle.
 */
import { z } from "zod";
import { GROUPINGS } from "./usage-query";

export const MoneySchema = z
  .string()
  .meta({ description: 'USD as an exact decimal string, e.g. "12.34" or "0.0125".' });

const sums = {
  events: z.int(),
  count: z.int().meta({ description: "Sum of quantities." }),
  cost: MoneySchema,
};

export const SumsSchema = z.object(sums);
export type Sums = z.infer<typeof SumsSchema>;

export const UsageRecordSchema = z
  .object({
    usage_event_uuid: z.uuid(),
    date: z.iso.datetime(),
    name: z.string().nullable(),
    operation: z.string(),
    eval_type: z.string().meta({ description: "The eval type the event was sent with." }),
    created_by: z.string().nullable(),
    quantity: z.int(),
    unit_price: MoneySchema,
    cost: MoneySchema,
    eval_uuid: z.string().nullable(),
    eval_run_uuid: z.string().nullable(),
    workspace_uuid: z.uuid().nullable(),
    workspace_name: z.string().meta({ description: 'The workspace\'s name, else "Unknown Workspace".' }),
    notes: z.string().nullable().meta({ description: "Price adjustment note." }),
    adjustment: z.boolean().meta({
      description:
        "A price adjustment: the event was sent with its own cost (a credit or a charge) or is a price correction line, so no price change re-rates it. Stored when the event is.",
    }),
    price_rule_uuid: z.uuid().nullable().meta({
      description: "The price rule that priced the event; null for a price adjustment without one.",
    }),
    price_rule_version: z.int().nullable().meta({
      description:
        "That rule's version within its lineage (same organization and dimensions): 1 for the first rule, one more for each later price. A rule never changes, so this is the version that priced the event.",
    }),
    rule_metric: z.string(),
    modality: z.string().nullable(),
    is_jailbreak: z.boolean(),
    has_ground_truth: z.boolean(),
    late_from: z
      .object({
        period_start: z.iso.date(),
        period_end: z.iso.date(),
        occurred_at: z.iso.datetime().nullable().meta({
          description:
            "When the late usage happened (priced at that time); null for a price correction line.",
        }),
      })
      .nullable()
      .optional()
      .meta({
        description:
          "Usage of a closed billing cycle billed in this one (a closed cycle never changes): a late event, or a price correction line for that cycle. `date` is when it was billed; null for every other record.",
      }),
  })
  .meta({ id: "UsageRecord" });
export type UsageRecord = z.infer<typeof UsageRecordSchema>;

export const UsageRecordsPageSchema = z
  .object({ records: z.array(UsageRecordSchema), total: z.int(), page: z.int(), page_size: z.int() })
  .meta({ id: "UsageRecordsPage" });
export type UsageRecordsPage = z.infer<typeof UsageRecordsPageSchema>;

const adjustmentSums = SumsSchema.meta({
  description: "The part of this row's sums that is credits and other price adjustments.",
});

const evalTypeGroup = z.string().meta({
  description: "An eval type group: accuracy includes hallucination; any other eval type is its own group.",
});

export const FilterOptionsSchema = z
  .object({
    eval_types: z.array(evalTypeGroup),
    operations: z.array(z.string()),
    modalities: z.array(z.string()),
    workspaces: z.array(z.object({ workspace_uuid: z.uuid(), workspace_name: z.string() })),
  })
  .meta({ description: "The values present in the billing cycle, whatever the filters." });
export type FilterOptions = z.infer<typeof FilterOptionsSchema>;

export const UsageSummarySchema = z
  .object({
    billing_cycle_uuid: z.uuid(),
    data_as_of: z.iso.datetime(),
    totals: SumsSchema,
    adjustments: SumsSchema.meta({
      description:
        "Credits and other price adjustments (events with an explicit cost) included in totals: usage alone is totals minus adjustments.",
    }),
    credits: SumsSchema.meta({ description: "The adjustments with a negative cost." }),
    charges: SumsSchema.meta({ description: "The adjustments with a positive cost." }),
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
    by_eval_type: z
      .array(z.object({ eval_type: evalTypeGroup, ...sums, adjustments: adjustmentSums }))
      .meta({ description: "The top 5 eval type groups by cost." }),
    filter_options: FilterOptionsSchema,
  })
  .meta({ id: "UsageSummary" });
export type UsageSummary = z.infer<typeof UsageSummarySchema>;

export const GroupingSchema = z.enum(GROUPINGS);
export type Grouping = z.infer<typeof GroupingSchema>;

const seriesSums = { events: z.int(), count: z.int(), price: MoneySchema };
const bucketAdjustments = z
  .object(seriesSums)
  .meta({ description: "The part of this bucket's sums that is credits and other price adjustments." });

export const SeriesBucketSchema = z.object({
  date: z.string().meta({ description: "First day of the bucket, YYYY-MM-DD (UTC)." }),
  events: z.int(),
  total_count: z.int(),
  total_price: MoneySchema,
  adjustments: bucketAdjustments,
  eval_types: z.array(z.object({ eval_type: evalTypeGroup, ...seriesSums, adjustments: bucketAdjustments })),
});
export type SeriesBucket = z.infer<typeof SeriesBucketSchema>;

export const UsageSeriesSchema = z
  .object({ billing_cycle_uuid: z.uuid(), grouping: GroupingSchema, buckets: z.array(SeriesBucketSchema) })
  .meta({ id: "UsageSeries" });
export type UsageSeries = z.infer<typeof UsageSeriesSchema>;

/**
 * The organization's usage events awaiting pricing: accepted, but no price rule matched them yet.
 * They are in no total until a provider operator sets a price that covers them.
 */
export const AwaitingPricingSchema = z
  .object({
    events: z.int().min(0).meta({ description: "Events awaiting pricing (not in any total or bill yet)." }),
    oldest_occurred_at: z.iso
      .datetime()
      .nullable()
      .meta({ description: "The oldest awaiting event's occurred_at; null when none awaits." }),
  })
  .meta({ id: "AwaitingPricing" });
export type AwaitingPricing = z.infer<typeof AwaitingPricingSchema>;
