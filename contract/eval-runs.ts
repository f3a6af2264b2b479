/**
 * Eval runs: the cost of one run of an eval, read from the usage events that carry its
 * eval_run_uuid, plus the runs an eval service started (POST /v1/eval-runs) before sending any
 * usage. The server validates and documents its answers with these schemas; the console imports
 * the types only (`import type`) and the plain constants.
 */
import { z } from "zod";
import { outcomeFigureFields } from "./eval-run-outcomes";
import { ReservationSchema } from "./reservations";
import { MoneySchema } from "./usage-schemas";

/** The list's sortable columns; the sort parameter is one of them, descending with a leading "-". */
export const EVAL_RUN_SORT_FIELDS = ["started_at", "cost", "events"] as const;
export type EvalRunSortField = (typeof EVAL_RUN_SORT_FIELDS)[number];

export { EVAL_RUN_PAGE_SIZE, MAX_EVAL_RUN_PAGE_SIZE } from "./eval-run-paging";

/** A run id as events carry it: free text up to 200 characters (often a UUID). */
export const MAX_EVAL_RUN_ID_LENGTH = 200;

export const EvalRunSchema = z
  .object({
    eval_run_uuid: z.string(),
    eval_name: z.string().nullable().meta({
      description:
        "The name given when the run was started, else the events' name (the eval's name); when the events disagree, the first in alphabetical order.",
    }),
    eval_uuid: z.string().nullable().meta({ description: "The events' eval_uuid (the first, as above)." }),
    eval_type: z.string().nullable().meta({ description: "As started, else the events' eval type." }),
    workspace_uuid: z.uuid().nullable(),
    workspace_name: z.string().meta({
      description:
        'The workspace\'s name; "No Workspace" when the events carry none, "Unknown Workspace" when it is not one of the organization\'s.',
    }),
    started_by: z.string().nullable().meta({
      description: "Who started the run through POST /v1/eval-runs (an email), else null.",
    }),
    started_at: z.iso.datetime().meta({
      description: "When the run was started, else the time of its first event in the billing cycle.",
    }),
    last_event_at: z.iso.datetime().nullable().meta({ description: "null while the run has no events." }),
    events: z.int(),
    quantity: z.int(),
    cost: MoneySchema.meta({ description: "The sum of the run's event costs in the billing cycle, exact." }),
  })
  .meta({ id: "EvalRun" });
export type EvalRun = z.infer<typeof EvalRunSchema>;

export const EvalRunListSchema = z
  .object({
    eval_runs: z.array(EvalRunSchema.extend(outcomeFigureFields).meta({ id: "EvalRunRow" })),
    total: z.int(),
    page: z.int(),
    page_size: z.int(),
    billing_cycle_uuid: z.uuid().meta({ description: "The billing cycle the figures belong to." }),
  })
  .meta({ id: "EvalRunList" });
export type EvalRunList = z.infer<typeof EvalRunListSchema>;

export const EvalRunOperationSchema = z
  .object({ operation: z.string(), events: z.int(), quantity: z.int(), cost: MoneySchema })
  .meta({ id: "EvalRunOperation" });
export type EvalRunOperation = z.infer<typeof EvalRunOperationSchema>;

export const EvalRunDetailSchema = EvalRunSchema.extend({
  billing_cycle_uuid: z.uuid().meta({
    description:
      "The billing cycle the figures belong to; /v1/usage/records?eval_run_uuid=…&billing_cycle_uuid=… lists the same events.",
  }),
  operations: z.array(EvalRunOperationSchema).meta({ description: "Per operation, highest cost first." }),
  reservation: ReservationSchema.nullable().meta({
    description:
      "The spend reserved when the run was started with an estimate (null without one), and where it stands.",
  }),
  ...outcomeFigureFields,
}).meta({ id: "EvalRunDetail" });
export type EvalRunDetail = z.infer<typeof EvalRunDetailSchema>;

/** What POST /v1/eval-runs answers: the id the eval service sends with the run's usage events. */
export const StartedEvalRunSchema = z
  .object({
    eval_run_uuid: z.uuid(),
    workspace_uuid: z.uuid(),
    eval_name: z.string().nullable(),
    eval_type: z.string().nullable(),
    started_by: z.string().nullable(),
    started_at: z.iso.datetime(),
    reservation: ReservationSchema.nullable().meta({ description: "null when started without an estimate." }),
  })
  .meta({ id: "StartedEvalRun" });
export type StartedEvalRun = z.infer<typeof StartedEvalRunSchema>;
