import { z } from "zod";
import { parseUsd } from "../../../contract/money";
import type { RuleMetric } from "../pricing/rule-matching";
import { MAX_EVENT_COST_MICROS, MAX_EVENT_COST_USD, MAX_FUTURE_MS, MAX_QUANTITY } from "./limits";

export { isStorableText } from "../../../contract/storable-text";
export { MAX_EVENTS_PER_BATCH, MAX_FUTURE_MS } from "./limits";

import { isStorableText } from "../../../contract/storable-text";

const storable = (field: string) => ({
  error: `${field} must not contain NUL characters or unpaired surrogates.`,
});

const text = (field: string, max = 200) =>
  z
    .string({ error: `${field} must be a string.` })
    .refine(isStorableText, storable(field))
    .trim()
    .min(1, { error: `${field} must not be empty.` })
    .max(max, { error: `${field} must be at most ${max} characters.` });

const optionalText = (field: string, max = 200) =>
  z
    .string({ error: `${field} must be a string.` })
    .refine(isStorableText, storable(field))
    .trim()
    .max(max, { error: `${field} must be at most ${max} characters.` })
    .nullish()
    .transform((v) => (v ? v : null));

const amount = z.union([z.string(), z.number()], { error: "cost must be a number or a decimal string." });

/** One usage event as a client sends it (snake_case, unknown fields refused). */
export const UsageEventInput = z
  .strictObject({
    event_id: text("event_id"),
    occurred_at: z.iso.datetime({ offset: true, error: "occurred_at must be an ISO 8601 date-time." }),
    workspace_uuid: z.uuid({ error: "workspace_uuid must be a UUID." }).nullish(),
    eval_uuid: optionalText("eval_uuid"),
    eval_run_uuid: optionalText("eval_run_uuid"),
    name: optionalText("name", 500),
    operation: text("operation", 100),
    eval_type: text("eval_type", 100),
    modality: optionalText("modality", 100),
    is_jailbreak: z.boolean({ error: "is_jailbreak must be true or false." }).default(false),
    has_ground_truth: z.boolean({ error: "has_ground_truth must be true or false." }).default(false),
    created_by: optionalText("created_by", 320),
    quantity: z
      .int({ error: "quantity must be a whole number." })
      .min(1, { error: "quantity must be at least 1." })
      .max(MAX_QUANTITY, { error: `quantity must be at most ${MAX_QUANTITY}.` })
      .nullish(),
    rule_metric: z.enum(["eval", "prompt"], { error: 'rule_metric must be "eval" or "prompt".' }).nullish(),
    cost: amount.optional().meta({
      description: `Provider operators only: a price adjustment (credits negative, charges positive, at most $${MAX_EVENT_COST_USD} either way), which must carry notes and is audited; otherwise the cost is quantity × the matching price rule's unit price. Sent with an ingestion key, the event is rejected.`,
    }),
    notes: optionalText("notes", 2000),
  })
  .meta({ id: "UsageEventInput" });

export type UsageEventInput = z.input<typeof UsageEventInput>;

/**
 * The same schema compiled ahead of time by zod: a generated parser for the valid case, about seven
 * times faster per event than the interpreted one, which it falls back to for any event it would
 * reject, so every reason is the schema's own. Ingestion validates every event of every batch.
 */
const CompiledEventInput = z.compile(UsageEventInput);

/** A valid event, normalized, before pricing. */
export type ValidEvent = {
  eventId: string;
  occurredAt: Date;
  workspaceUuid: string | null;
  evalUuid: string | null;
  evalRunUuid: string | null;
  name: string | null;
  operation: string;
  evalType: string;
  modality: string;
  isJailbreak: boolean;
  hasGroundTruth: boolean;
  createdBy: string | null;
  quantity: number;
  ruleMetric: RuleMetric;
  /** Set for adjustments only. */
  costMicros: bigint | null;
  notes: string | null;
};

export type Validation =
  | { ok: true; event: ValidEvent }
  | { ok: false; eventId: string | null; reason: string };

function reasonOf(error: z.ZodError, raw: unknown): string {
  const issue = error.issues[0];
  if (!issue) return "the event is not valid";
  if (issue.code === "unrecognized_keys") return `unknown field(s): ${issue.keys.join(", ")}`;
  const field = issue.path.join(".");
  if (!field) return "each event must be a JSON object";
  const top = issue.path[0];
  const given =
    typeof top === "string" &&
    raw &&
    typeof raw === "object" &&
    (raw as Record<string, unknown>)[top] !== undefined;
  if (issue.code === "invalid_type" && !given) return `${field} is required`;
  return issue.message.replace(/\.$/, "");
}

/** Validates one raw event on its own; `now` is the server clock. */
export function validateEvent(raw: unknown, now: Date): Validation {
  const given =
    raw && typeof raw === "object" && typeof (raw as { event_id?: unknown }).event_id === "string"
      ? (raw as { event_id: string }).event_id
      : null;
  const rawId = given !== null && isStorableText(given) ? given.trim() || null : null;
  const parsed = CompiledEventInput.safeParse(raw);
  if (!parsed.success) return { ok: false, eventId: rawId, reason: reasonOf(parsed.error, raw) };
  const e = parsed.data;
  const occurredAt = new Date(e.occurred_at);
  if (Number.isNaN(occurredAt.getTime()))
    return { ok: false, eventId: rawId, reason: "occurred_at is not a real date" };
  if (occurredAt.getTime() > now.getTime() + MAX_FUTURE_MS)
    return {
      ok: false,
      eventId: rawId,
      reason: `occurred_at ${occurredAt.toISOString()} is more than 5 minutes in the future`,
    };
  let costMicros: bigint | null = null;
  if (e.cost !== undefined) {
    try {
      costMicros = parseUsd(e.cost);
    } catch (err) {
      return { ok: false, eventId: rawId, reason: `cost: ${(err as Error).message}` };
    }
    if (costMicros > MAX_EVENT_COST_MICROS || costMicros < -MAX_EVENT_COST_MICROS)
      return {
        ok: false,
        eventId: rawId,
        reason: `cost must be between -${MAX_EVENT_COST_USD} and ${MAX_EVENT_COST_USD}`,
      };
    if (!e.notes)
      return { ok: false, eventId: rawId, reason: "an event with an explicit cost (adjustment) needs notes" };
  }
  return {
    ok: true,
    event: {
      eventId: e.event_id,
      occurredAt,
      workspaceUuid: e.workspace_uuid ?? null,
      evalUuid: e.eval_uuid,
      evalRunUuid: e.eval_run_uuid,
      name: e.name,
      operation: e.operation,
      evalType: e.eval_type,
      modality: (e.modality ?? "").toLowerCase(),
      isJailbreak: e.is_jailbreak,
      hasGroundTruth: e.has_ground_truth,
      createdBy: e.created_by,
      quantity: e.quantity ?? 1,
      ruleMetric: e.rule_metric ?? "eval",
      costMicros,
      notes: e.notes,
    },
  };
}

/**
 * A line of an NDJSON stream that is not a JSON object: it takes the place of an event so that it
 * is rejected with its index and reason while the other lines are ingested.
 */
export class MalformedEvent {
  constructor(readonly reason: string) {}
}

/** The UTC calendar day of an instant, "YYYY-MM-DD". */
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);
