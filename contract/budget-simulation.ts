/**
 * POST /v1/budgets/simulate: a proposed budget replayed over the organization's real usage of the
 * last N days, cycle by cycle, as the live budget would have judged it. Shared by the server (which
 * validates and documents with these schemas) and the console's preview (types only).
 */
import { z } from "zod";
import { DEFAULT_SIMULATION_DAYS, MAX_SIMULATION_DAYS } from "./budget-limits";
import { BudgetCreateSchema } from "./budgets";
import { MoneySchema } from "./usage-schemas";

export { DEFAULT_SIMULATION_DAYS, MAX_SIMULATION_DAYS } from "./budget-limits";

export const BudgetSimulationRequestSchema = BudgetCreateSchema.extend({
  days: z
    .int({ error: `days must be a whole number of days from 1 to ${MAX_SIMULATION_DAYS}.` })
    .min(1, { error: `days must be a whole number of days from 1 to ${MAX_SIMULATION_DAYS}.` })
    .max(MAX_SIMULATION_DAYS, {
      error: `days must be a whole number of days from 1 to ${MAX_SIMULATION_DAYS}.`,
    })
    .optional()
    .meta({
      description: `How many days back to replay, today included (default ${DEFAULT_SIMULATION_DAYS}).`,
    }),
}).meta({ id: "BudgetSimulationRequest" });
export type BudgetSimulationRequest = z.infer<typeof BudgetSimulationRequestSchema>;

const day = z.iso.date();

export const SimulatedDaySchema = z
  .object({
    day,
    spend: MoneySchema.meta({ description: "The budget's scope's spend on that day (UTC)." }),
    cycle_spend: MoneySchema.meta({
      description: "Spend in that day's billing cycle up to the end of the day: what the budget compares.",
    }),
    blocked: z
      .boolean()
      .meta({ description: "Whether the hard limit was refusing new work at the end of the day." }),
  })
  .meta({ id: "SimulatedDay" });
export type SimulatedDay = z.infer<typeof SimulatedDaySchema>;

export const SimulatedAlertSchema = z
  .object({
    threshold: z.int(),
    cycle_start: day,
    day: day.meta({ description: "The day spend reached the threshold (the live alert fires during it)." }),
    spent: MoneySchema.meta({ description: "The cycle's spend at the end of that day." }),
  })
  .meta({ id: "SimulatedAlert" });
export type SimulatedAlert = z.infer<typeof SimulatedAlertSchema>;

export const SimulatedBlockSchema = z
  .object({
    cycle_start: day,
    reached_on: day.meta({ description: "The day spend reached the amount." }),
    from: z.iso.datetime().meta({
      description: "The end of that day: from then on the replay is sure work-starting calls were refused.",
    }),
    until: z.iso.datetime().meta({
      description:
        "When work could start again: the cycle's end, a credit bringing spend back below, or now.",
    }),
    hours: z.number().meta({ description: "until − from, in hours." }),
    ongoing: z
      .boolean()
      .meta({ description: "Still refusing new work now: until is the time of the replay." }),
    runs_refused: z.int().meta({
      description:
        "Eval runs started (POST /v1/eval-runs) in the scope between from and until: each would have had a 402.",
    }),
    spend_avoided: MoneySchema.meta({
      description:
        "Spend recorded in the scope between from and until. An upper bound: runs already in flight keep reporting their usage past a hard limit.",
    }),
  })
  .meta({ id: "SimulatedBlock" });
export type SimulatedBlock = z.infer<typeof SimulatedBlockSchema>;

export const BudgetSimulationSchema = z
  .object({
    scope: BudgetCreateSchema.shape.scope,
    workspace_uuid: z.uuid().nullable(),
    amount: MoneySchema,
    thresholds: z.array(z.int()),
    hard_limit: z.boolean(),
    from: day.meta({ description: "The first day replayed (UTC)." }),
    to: day.meta({ description: "The last day replayed: today (UTC), whose usage may still be arriving." }),
    days: z.array(SimulatedDaySchema),
    alerts: z
      .array(SimulatedAlertSchema)
      .meta({ description: "Each threshold reached, at most once per cycle, in order." }),
    blocks: z.array(SimulatedBlockSchema).meta({
      description: "The periods the hard limit would have refused new work (empty without hard_limit).",
    }),
    runs_refused: z.int(),
    spend_avoided: MoneySchema,
  })
  .meta({ id: "BudgetSimulation" });
export type BudgetSimulation = z.infer<typeof BudgetSimulationSchema>;
