/**
 * A run's estimate in micro-dollars: a cost as given, or events per operation priced by the
 * organization's price rules in force now — the rule ingestion would pick for such an event
 * (pricing.ts), times its quantity and count. A line no rule prices is refused: the caller can
 * send a cost instead, and a run is never admitted on an estimate of nothing.
 *
 * The total, however it is given, is capped at MAX_ESTIMATE_USD: summed in BigInt (a billion
 * events of a billion units passes any fixed-width type) and refused with a 400 above the cap, so
 * what is reserved always fits the reserved column.
 */

import { formatMoney, parseUsd } from "../../../contract/money";
import { type Estimate, MAX_ESTIMATE_MICROS, MAX_ESTIMATE_TEXT } from "../../../contract/reservations";
import type { Db, Tx } from "../../platform/database";
import { DomainError } from "../../platform/domain-error";
import { loadPriceRules } from "../pricing/prices";
import { matchPriceRule, noRuleReason, type Priceable } from "../pricing/rule-matching";

export async function priceEstimate(
  db: Db | Tx,
  organizationUuid: string,
  estimate: Estimate,
  runEvalType: string | null,
  now = new Date(),
): Promise<bigint> {
  if (estimate.cost !== undefined) return capped(parseUsd(estimate.cost), "estimate.cost is");
  const lines = estimate.events ?? [];
  const rules = await loadPriceRules(db, organizationUuid);
  let total = 0n;
  for (const [i, line] of lines.entries()) {
    const evalType = line.eval_type ?? runEvalType;
    if (!evalType)
      throw new DomainError(
        `estimate.events[${i}].eval_type is required when the run is started without an eval_type.`,
        "invalid",
      );
    const event: Priceable = {
      organizationUuid,
      operation: line.operation,
      evalType,
      modality: (line.modality ?? "").toLowerCase(),
      ruleMetric: "eval",
      occurredAt: now,
    };
    const rule = matchPriceRule(rules, event);
    if (!rule)
      throw new DomainError(
        `estimate.events[${i}]: ${noRuleReason(event)}; send estimate.cost instead.`,
        "invalid",
      );
    total += rule.unitPriceMicros * BigInt(line.quantity ?? 1) * BigInt(line.count);
  }
  return capped(total, "estimate.events total, at today's prices,");
}

/** The estimate's total when within the cap; a 400 naming it otherwise. */
function capped(total: bigint, what: string): bigint {
  if (total <= MAX_ESTIMATE_MICROS) return total;
  throw new DomainError(
    `${what} ${formatMoney(total)}: above the largest estimate accepted, ${MAX_ESTIMATE_TEXT}. ` +
      "Split the work into several runs.",
    "invalid",
  );
}
