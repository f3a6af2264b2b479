/** Price-rule matching: which rule prices an event, decided without the database. */

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

export function ruleApplies(rule: PriceRule, e: Priceable): boolean {
  return (
    (rule.organizationUuid === null || rule.organizationUuid === e.organizationUuid) &&
    fits(rule.operation, e.operation) &&
    fits(rule.evalType, e.evalType) &&
    fits(rule.modality === null ? null : rule.modality.toLowerCase(), e.modality) &&
    fits(rule.ruleMetric, e.ruleMetric) &&
    inForce(rule, e.occurredAt)
  );
}

/** How many of the dimension fields (operation, eval_type, modality, rule_metric) a rule pins. */
export function specificity(rule: PriceRule): number {
  return [rule.operation, rule.evalType, rule.modality, rule.ruleMetric].filter((v) => v !== null).length;
}

/**
 * Orders two applicable rules, best first: an organization's own rule before the global price
 * list, then the most specific (most non-wildcard dimensions), then the newest valid_from, then
 * the uuid so that the choice never depends on row order.
 */
export function compareRules(a: PriceRule, b: PriceRule): number {
  const own = Number(b.organizationUuid !== null) - Number(a.organizationUuid !== null);
  if (own) return own;
  const spec = specificity(b) - specificity(a);
  if (spec) return spec;
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

export function noRuleReason(e: Priceable): string {
  return `no price rule matches operation=${e.operation} eval_type=${e.evalType} modality=${e.modality || "(none)"} rule_metric=${e.ruleMetric} at ${e.occurredAt.toISOString()}`;
}
