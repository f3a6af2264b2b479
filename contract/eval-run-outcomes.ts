/**
 * What an eval run bought: its outcomes (test cases passed, failed, errored), as the eval service
 * reports them, and the figures derived from them and the run's cost (contract/eval-run-figures.ts
 * holds the arithmetic). The server validates and documents with these schemas; the console
 * imports the types only.
 */
import { z } from "zod";
import { MAX_OUTCOME_COUNT, type Outcomes, PASS_RATE_DECIMALS, SCORING_OPERATIONS } from "./eval-run-figures";
import { MoneySchema } from "./usage-schemas";

export * from "./eval-run-figures";

const count = (name: string) =>
  z
    .number({ error: `outcomes.${name} must be a whole number.` })
    .int({ error: `outcomes.${name} must be a whole number.` })
    .min(0, { error: `outcomes.${name} must be at least 0.` })
    .max(MAX_OUTCOME_COUNT, { error: `outcomes.${name} must be at most 1,000,000,000.` })
    .optional()
    .meta({ description: `Test cases ${name}: a whole number from 0 to 1,000,000,000; omitted is 0.` });

/** The outcomes a call reports; each count optional (0 when omitted), the set replacing the last. */
export const OutcomesInputSchema = z
  .strictObject(
    { passed: count("passed"), failed: count("failed"), errored: count("errored") },
    { error: "outcomes must be an object of passed, failed and errored." },
  )
  .transform((o): Outcomes => ({ passed: o.passed ?? 0, failed: o.failed ?? 0, errored: o.errored ?? 0 }))
  .meta({ id: "ReportedOutcomes" });

export const OutcomesSchema = z
  .object({ passed: z.int(), failed: z.int(), errored: z.int() })
  .meta({ id: "Outcomes" });

export const CostByRoleSchema = z
  .object({
    generation: MoneySchema.meta({ description: "The cost of every operation that is not scoring." }),
    scoring: MoneySchema.meta({
      description: `The judge's cost: operations ${SCORING_OPERATIONS.join(", ")} (any case).`,
    }),
  })
  .meta({ id: "CostByRole", description: "generation + scoring = the run's cost, exactly." });
export type CostByRole = z.infer<typeof CostByRoleSchema>;

/** The fields the run's list, its page, the comparison and the webhook add to a run. */
export const outcomeFigureFields = {
  outcomes: OutcomesSchema.nullable().meta({ description: "As last reported; null when never reported." }),
  pass_rate: z
    .string()
    .nullable()
    .meta({
      description: `passed ÷ (passed + failed + errored) as a decimal string with ${PASS_RATE_DECIMALS} decimals, rounded half up ("0.833333"); null without outcomes or when they are all 0.`,
    }),
  cost_per_passed_case: MoneySchema.nullable().meta({
    description:
      "cost ÷ passed in USD, to the micro-dollar, rounded half away from zero; null when nothing passed.",
  }),
  cost_by_role: CostByRoleSchema,
};
export const OutcomeFiguresSchema = z.object(outcomeFigureFields).meta({ id: "EvalRunOutcomeFigures" });

const sums = { events: z.int(), cost: MoneySchema };

/** A run's whole figures over all its events (every billing cycle): the webhook's data. */
export const EvalRunFiguresSchema = z
  .object({
    eval_run_uuid: z.string(),
    eval_name: z.string().nullable(),
    eval_type: z.string().nullable(),
    workspace_uuid: z.string().nullable(),
    started_at: z.iso.datetime().meta({ description: "When it was started, else its first event's time." }),
    finished_at: z.iso
      .datetime()
      .nullable()
      .meta({ description: "When POST …/finish was first called; null while it runs." }),
    events: z.int(),
    cost: MoneySchema.meta({ description: "The sum of all the run's event costs, exact." }),
    cost_by_operation: z
      .array(z.object({ operation: z.string(), ...sums }))
      .meta({ description: "Highest cost first." }),
    cost_by_eval_type: z
      .array(z.object({ eval_type: z.string().nullable(), ...sums }))
      .meta({ description: "Highest cost first; eval_type null for events without one." }),
    ...outcomeFigureFields,
  })
  .meta({ id: "EvalRunFigures" });
export type EvalRunFigures = z.infer<typeof EvalRunFiguresSchema>;

export const EvalRunDifferenceSchema = z
  .object({
    cost: MoneySchema.meta({ description: "This run's cost minus the first run's (signed)." }),
    events: z.int(),
    pass_rate: z.string().nullable().meta({ description: "Signed; null when either run has no pass rate." }),
    cost_per_passed_case: MoneySchema.nullable().meta({ description: "Signed; null when either has none." }),
  })
  .meta({ id: "EvalRunDifference", description: "From the first run compared (all 0 for the first)." });
export type EvalRunDifference = z.infer<typeof EvalRunDifferenceSchema>;

export const EvalRunComparisonSchema = z
  .object({
    runs: z.array(EvalRunFiguresSchema.extend({ difference: EvalRunDifferenceSchema })),
  })
  .meta({ id: "EvalRunComparison" });
export type EvalRunComparison = z.infer<typeof EvalRunComparisonSchema>;
export type ComparedRun = EvalRunComparison["runs"][number];
