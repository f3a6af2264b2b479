/**
 * A billing cycle as the product API answers it (GET /v1/accounts/organization/billingcycles).
 * The server validates and documents with the schema; the console reads the type only.
 */
import { z } from "zod";
import { MoneySchema, UsageRecordSchema } from "./usage-schemas";

/** The most usage events one billing cycle detail carries. */
export const MAX_CYCLE_EVENTS = 10_000;

export const BillingCycleSchema = z
  .object({
    billing_cycle_uuid: z.uuid(),
    billing_cycle_start_date: z
      .string()
      .meta({ description: "YYYY-MM-DD; the cycle starts at midnight UTC." }),
    billing_cycle_end_date: z
      .string()
      .nullable()
      .meta({ description: "YYYY-MM-DD, exclusive (midnight UTC); null for the current cycle." }),
    paid_amount_usd: MoneySchema.meta({ description: "Sum of the cycle's payments, exact decimal string." }),
    total_cost: MoneySchema,
    unattributed_cost: MoneySchema.meta({ description: "Cost of usage without a workspace." }),
    workspace_groups: z.array(
      z.object({
        group_name: z.string().meta({ description: '"default": the workspaces in no group.' }),
        total_cost: MoneySchema,
        balance_remaining: MoneySchema.meta({
          description: "Cost minus the group's prepaid amount: still owed; negative when credit is left.",
        }),
      }),
    ),
    usage_breakdown: z.object({
      usage_events: z.array(UsageRecordSchema).meta({
        description: `Empty in the list; with billing_cycle_uuid, the ${MAX_CYCLE_EVENTS} newest events.`,
      }),
      usage_events_truncated: z.boolean().optional(),
    }),
  })
  .meta({ id: "BillingCycle" });
export type BillingCycle = z.infer<typeof BillingCycleSchema>;
export type WorkspaceGroup = BillingCycle["workspace_groups"][number];
