/**
 * A run's estimate in micro-dollars: a cost as given, or events per operation priced by the
 * organization's price rules in force now — the rule ingestion would pick for such an event
 * (pricing.ts), times its quantity and count. A line no rule prices is refused: the caller can
 * send a cost instead, and a run is never admitted on an estimate of nothing.
 */

import { parseUsd } from "../../contract/money";
import type { Estimate } from "../../contract/reservations";
import type { Db, Tx } from "../platform/database";
import { ApiError } from "../platform/errors";
import { loadPriceRules } from "./prices";
import { matchPriceRule, noRuleReason, type Priceable } from "./pricing";

export async function priceEstimate(
  db: Db | Tx,
  organizationUuid: string,
  estimate: Estimate,
  runEvalType: string | null,
  now = new Date(),
): Promise<bigint> {
  if (estimate.cost !== undefined) return parseUsd(estimate.cost);
  const lines = estimate.events ?? [];
  const rules = await loadPriceRules(db, organizationUuid);
  let total = 0n;
  for (const [i, line] of lines.entries()) {
    const evalType = line.eval_type ?? runEvalType;
    if (!evalType)
      throw new ApiError(
        "invalid_request",
        `estimate.events[${i}].eval_type is required when the run is started without an eval_type.`,
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
      throw new ApiError(
        "invalid_request",
        `estimate.events[${i}]: ${noRuleReason(event)}; send estimate.cost instead.`,
      );
    total += rule.unitPriceMicros * BigInt(line.quantity ?? 1) * BigInt(line.count);
  }
  return total;
}
