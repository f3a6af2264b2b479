/**
 * Reservations: an eval run started with an estimate holds that spend against every hard limit
 * that covers it, from its start until it finishes or idles, so two runs can never both be
 * admitted on the last dollars and a long run is refused before it spends rather than stopped
 * halfway. Shared by the server (validation, OpenAPI) and the console (types only).
 */
import { z } from "zod";
import { tryParseUsd } from "./money";
import {
  MAX_ESTIMATE_LINES,
  MAX_ESTIMATE_MICROS,
  MAX_ESTIMATE_TEXT,
  RESERVATION_IDLE_MINUTES,
} from "./reservation-limits";
import { isStorableText } from "./storable-text";
import { MoneySchema } from "./usage-schemas";

export {
  MAX_ESTIMATE_LINES,
  MAX_ESTIMATE_MICROS,
  MAX_ESTIMATE_TEXT,
  MAX_ESTIMATE_USD,
  RESERVATION_IDLE_MINUTES,
} from "./reservation-limits";

const AMOUNT = /^\d+(\.\d{1,6})?$/;

const text = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string.` })
    .min(1, { error: `${field} must not be empty.` })
    .max(max, { error: `${field} must be at most ${max} characters.` })
    .refine(isStorableText, { error: `${field} must not contain NUL characters or unpaired surrogates.` });

const count = (field: string) =>
  z
    .int({ error: `${field} must be a whole number.` })
    .min(1, { error: `${field} must be at least 1.` })
    .max(1_000_000_000, { error: `${field} must be at most 1,000,000,000.` });

export const EstimateLineSchema = z
  .strictObject({
    operation: text("estimate.events[].operation", 200),
    count: count("estimate.events[].count").meta({
      description: "How many events of this operation the run will send.",
    }),
    quantity: count("estimate.events[].quantity").optional().meta({
      description: "The quantity each event will carry (default 1), as the price rule multiplies it.",
    }),
    eval_type: text("estimate.events[].eval_type", 100)
      .optional()
      .meta({ description: "Default: the run's eval_type." }),
    modality: text("estimate.events[].modality", 100).optional(),
  })
  .meta({ id: "EstimateLine" });
export type EstimateLine = z.infer<typeof EstimateLineSchema>;

export const EstimateSchema = z
  .strictObject({
    cost: z
      .string({ error: 'estimate.cost must be a USD decimal string such as "12.50".' })
      .trim()
      .regex(AMOUNT, {
        error: 'estimate.cost must be a USD decimal string such as "12.50" (at most 6 decimals).',
      })
      // Exact: a float comparison lets 1000000000.0000001-like amounts through.
      .refine((v) => (tryParseUsd(v) ?? 0n) <= MAX_ESTIMATE_MICROS, {
        error: `estimate.cost must be at most ${MAX_ESTIMATE_TEXT}.`,
      })
      .optional()
      .meta({ description: `The run's expected cost in USD, at most ${MAX_ESTIMATE_TEXT}.` }),
    events: z
      .array(EstimateLineSchema, { error: "estimate.events must be an array." })
      .min(1, { error: "estimate.events must not be empty." })
      .max(MAX_ESTIMATE_LINES, { error: `estimate.events has at most ${MAX_ESTIMATE_LINES} lines.` })
      .optional()
      .meta({
        description:
          "The run's expected events per operation, priced by the organization's price rules now; their total " +
          `is capped as a cost is (at most ${MAX_ESTIMATE_TEXT}).`,
      }),
  })
  .refine((e) => (e.cost === undefined) !== (e.events === undefined), {
    error: "estimate takes either cost or events, not both and not neither.",
  })
  .meta({ id: "Estimate" });
export type Estimate = z.infer<typeof EstimateSchema>;

export const RESERVATION_STATES = ["held", "finished", "expired"] as const;

export const ReservationSchema = z
  .object({
    estimate: MoneySchema.meta({ description: "The spend reserved at the start." }),
    used: MoneySchema.meta({ description: "What the run has spent so far (all its usage events)." }),
    held: MoneySchema.meta({ description: "estimate − used while held, never below 0; 0 once released." }),
    beyond_estimate: MoneySchema.meta({ description: "used − estimate when the run spent more, else 0." }),
    state: z.enum(RESERVATION_STATES).meta({
      description: `held; finished (POST /v1/eval-runs/{id}/finish released it); expired (no usage for ${RESERVATION_IDLE_MINUTES} minutes released it).`,
    }),
    expires_at: z.iso
      .datetime()
      .nullable()
      .meta({
        description: `While held: when it expires unless the run sends usage (its last activity + ${RESERVATION_IDLE_MINUTES} minutes).`,
      }),
    finished_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "Reservation" });
export type Reservation = z.infer<typeof ReservationSchema>;

/** At most this many open reservations in one answer of GET /v1/budgets/reservations. */
export const MAX_LISTED_RESERVATIONS = 500;

/** An open reservation as administrators see it beside the budgets. */
export const OpenReservationSchema = z
  .object({
    eval_run_uuid: z.string(),
    workspace_uuid: z.string(),
    workspace_name: z.string().nullable(),
    eval_name: z.string().nullable(),
    started_by: z.string().nullable().meta({ description: "The email of who started the run." }),
    started_at: z.iso.datetime(),
    estimate: MoneySchema,
    used: MoneySchema,
    held: MoneySchema.meta({ description: "What it holds now against the hard limits covering it." }),
    expires_at: z.iso.datetime().meta({
      description: `When it releases itself unless the run sends usage (its last activity + ${RESERVATION_IDLE_MINUTES} minutes).`,
    }),
  })
  .meta({ id: "OpenReservation" });
export type OpenReservation = z.infer<typeof OpenReservationSchema>;

export const OpenReservationListSchema = z
  .object({
    reservations: z.array(OpenReservationSchema).meta({
      description: `The largest holds first, at most ${MAX_LISTED_RESERVATIONS}.`,
    }),
    total: z.int().meta({ description: "How many reservations are open." }),
    held: MoneySchema.meta({ description: "What they hold together." }),
  })
  .meta({ id: "OpenReservationList" });
export type OpenReservationList = z.infer<typeof OpenReservationListSchema>;

export const ReleasedReservationSchema = z
  .object({
    eval_run_uuid: z.string(),
    released: MoneySchema.meta({ description: "What the reservation held when it was released." }),
    reservation: ReservationSchema,
  })
  .meta({ id: "ReleasedReservation" });
export type ReleasedReservation = z.infer<typeof ReleasedReservationSchema>;
