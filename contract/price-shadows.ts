/**
 * The rules that outrank a price just set (server/metering/price-shadows.ts): their shape in the
 * operator API's answer, and the sentence the command line and the console say for each.
 */

/** Why the other rule wins (docs/pricing.md, "Which rule prices an event"). */
export type WinReason =
  | "own_organization"
  | "operator_rule"
  | "more_dimensions"
  | "dimension_order"
  | "newer";

export const WIN_REASONS = [
  "own_organization",
  "operator_rule",
  "more_dimensions",
  "dimension_order",
  "newer",
] as const satisfies readonly WinReason[];

export type ShadowJson = {
  price_rule_uuid: string;
  organization_uuid: string | null;
  operation: string | null;
  eval_type: string | null;
  modality: string | null;
  rule_metric: string | null;
  unit_price_usd: string;
  version: number;
  events: number;
  reason: WinReason;
};

const REASONS: Record<WinReason, string> = {
  own_organization: "it is the organization's own price",
  operator_rule: "it was set by an operator, not shipped",
  more_dimensions: "it names more dimensions",
  dimension_order:
    "it names as many dimensions, one of them earlier in the order eval_type, operation, modality, rule_metric",
  newer: "it names the same dimensions and starts later",
};

/** "eval_type=safety operation=generation": the dimensions a rule names, in the tie-break's order. */
export const namedDimensions = (
  s: Pick<ShadowJson, "operation" | "eval_type" | "modality" | "rule_metric">,
) =>
  (
    [
      ["eval_type", s.eval_type],
      ["operation", s.operation],
      ["modality", s.modality],
      ["rule_metric", s.rule_metric],
    ] as const
  )
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ") || "no dimension";

/** One sentence per outranking rule: how many events it takes, which rule, why. */
export const shadowSentence = (s: ShadowJson) =>
  `${s.events.toLocaleString("en-US")} ${s.events === 1 ? "event" : "events"} of the open cycle that this price fits ${s.events === 1 ? "is" : "are"} priced by rule ${s.price_rule_uuid} (${namedDimensions(s)}, ${s.organization_uuid ? `organization ${s.organization_uuid}` : "global"}, $${s.unit_price_usd}): ${REASONS[s.reason]}.`;

/** The command line's lines under the new rule's. */
export const shadowLines = (shadows: readonly ShadowJson[]): string[] =>
  shadows.map((s) => `Warning: ${shadowSentence(s)}`);
