/** Price-rule matching: which rule prices an event, decided without the database. */
import type { WinReason } from "../../../contract/price-shadows";

export type RuleMetric = "eval" | "prompt";

export type PriceRule = {
  priceRuleUuid: string;
  /** null: the global default price list. */
  organizationUuid: string | null;
  operation: string | null;
  evalType: string | null;
  modality: string | null;
  ruleMetric: string | null;
  unitPriceMicros: bigint;
  validFrom: Date;
  validTo: Date | null;
  /** A rule of the default price list shipped with the product (ranked below operators' rules). */
  builtIn?: boolean;
  /** The version within its lineage (same organization and dimensions): 1, 2, … as set. */
  version?: number;
};

export type Priceable = {
  organizationUuid: string;
  operation: string;
  evalType: string;
  /** Lower-cased; "" when the event has none (only wildcard rules match it then). */
  modality: string;
  ruleMetric: RuleMetric;
  occurredAt: Date;
};

/** Rule is in force at `at`: valid_from <= at < valid_to. */
export function inForce(rule: Pick<PriceRule, "validFrom" | "validTo">, at: Date): boolean {
  const t = at.getTime();
  return rule.validFrom.getTime() <= t && (rule.validTo === null || t < rule.validTo.getTime());
}

const fits = (ruleValue: string | null, value: string) => ruleValue === null || ruleValue === value;

/** The rule's organization and dimensions fit the event (its validity in time aside). */
function fitsDimensions(rule: PriceRule, e: Omit<Priceable, "occurredAt">): boolean {
  return (
    (rule.organizationUuid === null || rule.organizationUuid === e.organizationUuid) &&
    fits(rule.operation, e.operation) &&
    fits(rule.evalType, e.evalType) &&
    fits(rule.modality === null ? null : rule.modality.toLowerCase(), e.modality) &&
    fits(rule.ruleMetric, e.ruleMetric)
  );
}

export function ruleApplies(rule: PriceRule, e: Priceable): boolean {
  return fitsDimensions(rule, e) && inForce(rule, e.occurredAt);
}

/** How many of the dimension fields (operation, eval_type, modality, rule_metric) a rule pins. */
export function specificity(rule: PriceRule): number {
  return [rule.operation, rule.evalType, rule.modality, rule.ruleMetric].filter((v) => v !== null).length;
}

/**
 * The fixed order in which the dimensions break a tie between rules naming equally many: the rule
 * naming the earlier one wins. An eval type is what a customer buys, so a price set for it wins
 * over one set for a rule metric (docs/pricing.md, "Which rule prices an event").
 */
export const DIMENSION_ORDER = ["evalType", "operation", "modality", "ruleMetric"] as const;

/** The dimensions a rule names as bits, the first of DIMENSION_ORDER highest: the larger wins a tie. */
export function dimensionRank(rule: PriceRule): number {
  let rank = 0;
  for (const d of DIMENSION_ORDER) rank = rank * 2 + (rule[d] === null ? 0 : 1);
  return rank;
}

/** Why `a` is ranked before `b` (compareRules(a, b) < 0); null when it is not. */

export function whyRankedBefore(a: PriceRule, b: PriceRule): WinReason | null {
  if (compareRules(a, b) >= 0) return null;
  if ((a.organizationUuid !== null) !== (b.organizationUuid !== null)) return "own_organization";
  if ((a.builtIn === true) !== (b.builtIn === true)) return "operator_rule";
  if (specificity(a) !== specificity(b)) return "more_dimensions";
  if (dimensionRank(a) !== dimensionRank(b)) return "dimension_order";
  return "newer";
}

/**
 * Orders two applicable rules, best first: an organization's own rule before the global price
 * list, an operator's global rule before the default list shipped with the product (built in),
 * then the most specific (most non-wildcard dimensions), then, between rules naming equally many,
 * the one naming the earlier dimension of DIMENSION_ORDER (so which of two overlapping prices wins
 * does not depend on which was set last), then the newest valid_from, then the uuid so that the
 * choice never depends on row order.
 */
export function compareRules(a: PriceRule, b: PriceRule): number {
  const own = Number(b.organizationUuid !== null) - Number(a.organizationUuid !== null);
  if (own) return own;
  const shipped = Number(a.builtIn === true) - Number(b.builtIn === true);
  if (shipped) return shipped;
  const spec = specificity(b) - specificity(a);
  if (spec) return spec;
  const order = dimensionRank(b) - dimensionRank(a);
  if (order) return order;
  const newer = b.validFrom.getTime() - a.validFrom.getTime();
  if (newer) return newer;
  return a.priceRuleUuid < b.priceRuleUuid ? -1 : a.priceRuleUuid > b.priceRuleUuid ? 1 : 0;
}

/** The rule that prices the event, or null when none applies. */
export function matchPriceRule(rules: readonly PriceRule[], e: Priceable): PriceRule | null {
  let best: PriceRule | null = null;
  for (const rule of rules) if (ruleApplies(rule, e) && (!best || compareRules(rule, best) < 0)) best = rule;
  return best;
}

/**
 * matchPriceRule for many events against one set of rules: the rules whose dimensions fit a
 * combination of organization, operation, eval type, modality and metric are picked and sorted best
 * first once per combination (ingestion batches repeat a few combinations thousands of times); an
 * event then takes the first of them in force at its occurred_at. compareRules is a total order
 * that does not depend on time, so the answer is matchPriceRule's. `maxCombinations` bounds the
 * memory: past it, the memo starts over.
 */
export function createRuleMatcher(
  rules: readonly PriceRule[],
  maxCombinations = 10_000,
): (e: Priceable) => PriceRule | null {
  const memo = new Map<string, PriceRule[]>();
  return (e) => {
    // NUL cannot occur in stored text (events.ts refuses it), so the key is unambiguous.
    const key = `${e.organizationUuid}\u0000${e.operation}\u0000${e.evalType}\u0000${e.modality}\u0000${e.ruleMetric}`;
    let candidates = memo.get(key);
    if (!candidates) {
      candidates = rules.filter((r) => fitsDimensions(r, e)).sort(compareRules);
      if (memo.size >= maxCombinations) memo.clear();
      memo.set(key, candidates);
    }
    for (const rule of candidates) if (inForce(rule, e.occurredAt)) return rule;
    return null;
  };
}

export function noRuleReason(e: Priceable): string {
  return `no price rule matches operation=${e.operation} eval_type=${e.evalType} modality=${e.modality || "(none)"} rule_metric=${e.ruleMetric} at ${e.occurredAt.toISOString()}`;
}
