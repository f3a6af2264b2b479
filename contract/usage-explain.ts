/**
 * "Explain this charge" (GET /v1/usage/explain): a billing cycle's total taken apart one level at a
 * time — workspace groups (and the usage without a workspace), workspaces, eval runs, events — each
 * node with its parts and its lines per price rule (quantity × unit price = cost) or adjustment.
 * The server validates and documents with these schemas; the console reads the types only.
 */
import { z } from "zod";
import { EXPLAIN_LEVELS, EXPLAIN_LINE_KINDS } from "./usage-explain-query";
import { MoneySchema } from "./usage-schemas";

export * from "./usage-explain-query";

/**
 * Where a node is. A null workspace_uuid (at the workspace level and below) is the usage without a
 * workspace; a null eval_run_uuid (at the eval_run level) the workspace's usage without an eval run.
 */
export const ExplainNodeSchema = z
  .object({
    level: z.enum(EXPLAIN_LEVELS),
    group: z
      .string()
      .nullable()
      .meta({ description: 'The workspace group (level group); "default": the workspaces in no group.' }),
    workspace_uuid: z.uuid().nullable(),
    eval_run_uuid: z.string().nullable(),
    usage_event_uuid: z.uuid().nullable(),
  })
  .meta({ id: "ExplainNode" });
export type ExplainNode = z.infer<typeof ExplainNodeSchema>;

export const ExplainLineSchema = z
  .object({
    kind: z.enum(EXPLAIN_LINE_KINDS).meta({
      description:
        "rule: usage priced by one price rule version at one unit price, cost = quantity × unit_price exactly. " +
        "adjustment: one event whose cost was sent with it (a credit, a charge, a late-usage or price " +
        "correction), with its notes. more_adjustments: the adjustments beyond the ones listed, summed. " +
        "unitemized: usage the bill counts whose events are archived (no longer itemized).",
    }),
    price_rule_uuid: z.uuid().nullable(),
    price_rule_version: z.int().nullable(),
    unit_price: MoneySchema.nullable().meta({
      description: "Rule lines (and an adjustment's own unit price).",
    }),
    quantity: z.int(),
    events: z.int(),
    cost: MoneySchema,
    notes: z.string().nullable(),
    usage_event_uuid: z.uuid().nullable(),
    occurred_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "ExplainLine" });
export type ExplainLine = z.infer<typeof ExplainLineSchema>;

export const ExplainPartSchema = z
  .object({
    label: z.string(),
    description: z.string().nullable().meta({ description: "The eval's name of a run or event." }),
    node: ExplainNodeSchema.nullable().meta({
      description: "Where the part drills down to; null when it does not.",
    }),
    events: z.int(),
    cost: MoneySchema,
    occurred_at: z.iso.datetime().nullable().meta({ description: "An event's time." }),
    lines: z.array(ExplainLineSchema),
  })
  .meta({ id: "ExplainPart" });
export type ExplainPart = z.infer<typeof ExplainPartSchema>;

const PartsBeyondSchema = z.object({ parts: z.int(), cost: MoneySchema });

export const UsageExplainSchema = z
  .object({
    billing_cycle_uuid: z.uuid(),
    node: ExplainNodeSchema,
    label: z.string(),
    path: z
      .array(z.object({ label: z.string(), node: ExplainNodeSchema }))
      .meta({ description: "From the cycle down to this node (inclusive): the breadcrumb." }),
    total: MoneySchema.meta({
      description:
        "The node's cost. The cycle's is the billing cycle's total_cost; a part's equals its node's total.",
    }),
    events: z.int(),
    lines: z
      .array(ExplainLineSchema)
      .meta({ description: "The node's cost per rule and adjustment; they sum to total." }),
    parts_level: z.enum(EXPLAIN_LEVELS).nullable(),
    parts: z.array(ExplainPartSchema).meta({ description: "This page's parts, largest cost first." }),
    parts_count: z.int(),
    earlier: PartsBeyondSchema.meta({ description: "The parts on earlier pages: how many and their cost." }),
    later: PartsBeyondSchema.meta({
      description: "The parts on later pages. earlier + parts + later = total.",
    }),
    page: z.int(),
    page_size: z.int(),
  })
  .meta({ id: "UsageExplain" });
export type UsageExplain = z.infer<typeof UsageExplainSchema>;
