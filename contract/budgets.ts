/**
 * Spend controls shared by the server (which validates and documents its answers with these
 * schemas), the console (types only, `import type`, so zod stays out of its bundle) and webhook
 * receivers: budgets, their alerts, the allowance answer and the webhook events they send.
 */
import { z } from "zod";
import {
  BUDGET_SCOPES,
  MAX_BUDGET_AMOUNT_USD,
  MAX_BUDGET_THRESHOLD_PERCENT,
  MAX_BUDGET_THRESHOLDS,
} from "./budget-limits";
import { EvalRunFiguresSchema } from "./eval-run-outcomes";
import { MoneySchema } from "./usage-schemas";

export {
  BUDGET_SCOPES,
  type BudgetScope,
  DEFAULT_BUDGET_THRESHOLDS,
  MAX_BUDGET_AMOUNT_USD,
  MAX_BUDGET_THRESHOLD_PERCENT,
  MAX_BUDGET_THRESHOLDS,
} from "./budget-limits";

/** The error code (HTTP 402) of work-starting calls in a workspace past a hard limit. */
export const SPEND_LIMIT_ERROR_CODE = "spend_limit_exceeded";

export const ALLOWANCE_REASONS = ["workspace_hard_limit", "organization_hard_limit"] as const;
export type AllowanceReason = (typeof ALLOWANCE_REASONS)[number];

export const WEBHOOK_EVENT_TYPES = [
  "budget.alert.triggered",
  "budget.alert.resolved",
  "eval_run.finished",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Request header carrying `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export const WEBHOOK_SIGNATURE_HEADER = "eval-console-signature";
export const WEBHOOK_EVENT_ID_HEADER = "eval-console-event-id";

const percent = z.int().min(1).max(MAX_BUDGET_THRESHOLD_PERCENT);

export const BudgetSchema = z
  .object({
    budget_uuid: z.uuid(),
    scope: z.enum(BUDGET_SCOPES),
    workspace_uuid: z.uuid().nullable().meta({ description: "null for the organization's budget." }),
    workspace_name: z.string().nullable(),
    amount: MoneySchema.meta({ description: "Monthly budget: spend allowed per billing cycle." }),
    thresholds: z.array(percent).meta({ description: "Alert thresholds in percent of amount, ascending." }),
    hard_limit: z.boolean().meta({
      description:
        "When true, work-starting calls are refused (402 spend_limit_exceeded) once spend reaches the amount.",
    }),
    spent: MoneySchema.meta({
      description: "Spend in the current billing cycle, credits and charges included.",
    }),
    percent_used: z.number().meta({ description: "spent ÷ amount × 100, two decimals." }),
    triggered_thresholds: z
      .array(percent)
      .meta({ description: "Thresholds crossed and not resolved this cycle." }),
    cycle_start: z.iso.datetime(),
    cycle_end: z.iso.datetime(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Budget" });
export type Budget = z.infer<typeof BudgetSchema>;

export const BudgetListSchema = z.object({ budgets: z.array(BudgetSchema) }).meta({ id: "BudgetList" });
export type BudgetList = z.infer<typeof BudgetListSchema>;

export const BudgetAlertSchema = z
  .object({
    budget_uuid: z.uuid(),
    scope: z.enum(BUDGET_SCOPES),
    workspace_uuid: z.uuid().nullable(),
    workspace_name: z.string().nullable(),
    threshold: percent,
    state: z.enum(["triggered", "resolved"]),
    amount: MoneySchema,
    spent: MoneySchema.meta({ description: "Spend when the alert changed state." }),
    cycle_start: z.iso.datetime(),
    triggered_at: z.iso.datetime(),
    resolved_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "BudgetAlert" });
export type BudgetAlert = z.infer<typeof BudgetAlertSchema>;

export const BudgetAlertListSchema = z
  .object({
    alerts: z
      .array(BudgetAlertSchema)
      .meta({ description: "Triggered, unresolved alerts of the current cycle." }),
  })
  .meta({ id: "BudgetAlertList" });

export const AllowanceSchema = z
  .object({
    workspace_uuid: z.uuid(),
    allowed: z.boolean(),
    remaining: MoneySchema.nullable().meta({
      description:
        "Spend left before the tightest hard limit, less what running runs hold reserved (the same as free); null when no hard limit applies.",
    }),
    reason: z.enum(ALLOWANCE_REASONS).nullable(),
    spent: MoneySchema.nullable().meta({
      description:
        "The tightest hard limit's spend in the current billing cycle; null when no hard limit applies.",
    }),
    reserved: MoneySchema.nullable().meta({
      description: "What running runs hold reserved against it (their estimates less what they spent).",
    }),
    free: MoneySchema.nullable().meta({ description: "amount − spent − reserved, never below 0." }),
  })
  .meta({
    id: "Allowance",
    description: "The answer to an organization administrator (or their API key): with the cycle's spend.",
  });
export type Allowance = z.infer<typeof AllowanceSchema>;

/**
 * What a member (or a member's API key) is told: whether work may start and what is free. Spend is
 * a cost read, and cost reads are administrators' (members do not see billing), so neither the
 * cycle's spend nor what runs hold reserved is in it.
 */
export const MemberAllowanceSchema = AllowanceSchema.omit({ spent: true, reserved: true }).meta({
  id: "MemberAllowance",
  description: "The answer to a member (or a member's API key): no spend, no reservations.",
});
export type MemberAllowance = z.infer<typeof MemberAllowanceSchema>;

/** A member's view of an allowance. */
export function memberAllowance({ spent: _spent, reserved: _reserved, ...view }: Allowance): MemberAllowance {
  return view;
}

/** The JSON body of every webhook delivery. */
export const WebhookEventSchema = z
  .object({
    id: z.uuid().meta({ description: "The event's id; retries of one event carry the same id." }),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    created_at: z.iso.datetime(),
    organization_id: z.string(),
    data: z.union([BudgetAlertSchema, EvalRunFiguresSchema]).meta({
      description: "A BudgetAlert for the budget events, an EvalRunFigures for eval_run.finished.",
    }),
  })
  .meta({ id: "WebhookEvent" });
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

const AMOUNT = /^\d+(\.\d{1,6})?$/;

const amountInput = z
  .string({ error: 'amount must be a USD decimal string such as "100.00".' })
  .trim()
  .regex(AMOUNT, { error: 'amount must be a USD decimal string such as "100.00" (at most 6 decimals).' })
  .refine((v) => Number(v) > 0, { error: "amount must be greater than 0." })
  .refine((v) => Number(v) <= MAX_BUDGET_AMOUNT_USD, {
    error: `amount must be at most ${MAX_BUDGET_AMOUNT_USD.toLocaleString("en-US")} USD.`,
  })
  .meta({ description: 'Monthly budget in USD as a decimal string, e.g. "100.00"; greater than 0.' });

const thresholdsInput = z
  .array(
    z
      .int({ error: "thresholds must be whole percents." })
      .min(1, { error: "Each threshold must be between 1 and 1000 (percent)." })
      .max(MAX_BUDGET_THRESHOLD_PERCENT, { error: "Each threshold must be between 1 and 1000 (percent)." }),
    { error: "thresholds must be an array of whole percents." },
  )
  .min(1, { error: "Give at least one threshold." })
  .max(MAX_BUDGET_THRESHOLDS, { error: `At most ${MAX_BUDGET_THRESHOLDS} thresholds per budget.` })
  .refine((t) => new Set(t).size === t.length, { error: "thresholds must not repeat a value." })
  .meta({
    description: `Alert thresholds in percent of amount (1..${MAX_BUDGET_THRESHOLD_PERCENT}, at most ${MAX_BUDGET_THRESHOLDS}, no repeats); stored ascending.`,
  });

/** POST /v1/budgets. */
export const BudgetCreateSchema = z
  .strictObject({
    scope: z.enum(BUDGET_SCOPES, { error: 'scope must be "organization" or "workspace".' }),
    workspace_uuid: z
      .uuid({ error: "workspace_uuid must be a workspace uuid." })
      .nullish()
      .meta({ description: 'Required with scope "workspace"; omitted or null with scope "organization".' }),
    amount: amountInput,
    thresholds: thresholdsInput.optional().meta({ description: "Default [50, 80, 100]." }),
    hard_limit: z.boolean({ error: "hard_limit must be true or false." }).optional(),
  })
  .meta({ id: "BudgetCreate" });
export type BudgetCreate = z.infer<typeof BudgetCreateSchema>;

/** PATCH /v1/budgets/{budget_uuid}: any of the fields; the scope cannot change. */
export const BudgetUpdateSchema = z
  .strictObject({
    amount: amountInput.optional(),
    thresholds: thresholdsInput.optional(),
    hard_limit: z.boolean({ error: "hard_limit must be true or false." }).optional(),
  })
  .meta({ id: "BudgetUpdate" });
export type BudgetUpdate = z.infer<typeof BudgetUpdateSchema>;
