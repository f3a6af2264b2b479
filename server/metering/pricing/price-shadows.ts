/**
 * Which other rules keep a new price from some of the events it fits (docs/pricing.md, "When
 * another rule wins"). Setting a price answers them, so an operator whose price is outranked is told
 * which rule wins, why, and how many of the open cycle's events it prices, instead of finding out
 * from a bill. Read after the re-rating, when every event of the open cycle the new rule fits carries
 * the rule the current price list picks for it.
 */
import { sql } from "drizzle-orm";
import { formatUsdExact } from "../../../contract/money";
import type { ShadowJson, WinReason } from "../../../contract/price-shadows";
import type { Db } from "../../platform/database";
import { listCycles } from "../billing/cycles";
import { arrayLiteral } from "../shared/sql-arrays";
import { organizationsOf } from "./price-change";
import { loadPriceRules } from "./prices";
import { fitsRule, openFrom, RULE_PRICED } from "./rerate";
import { type PriceRule, specificity, whyRankedBefore } from "./rule-matching";

export type { ShadowJson } from "../../../contract/price-shadows";
export { shadowLines } from "../../../contract/price-shadows";

export type Shadow = { rule: PriceRule; reason: WinReason; events: number };

/** At most this many rules are named; the ones pricing the most events first. */
export const MAX_SHADOWS = 20;

/**
 * The rules that outrank `rule` (compareRules) and name at least as many dimensions, with how many
 * events of the open cycle they price among those `rule` fits. A rule naming fewer dimensions that
 * wins only because it is an organization's own (over a global price) is left out: that order is the
 * one an operator expects. Price adjustments are no rule's, and are not counted.
 */
export async function shadowsOf(db: Db, rule: PriceRule): Promise<Shadow[]> {
  const shadows: Shadow[] = [];
  for (const org of await organizationsOf(db, rule)) {
    // Only the rules that would outrank it can shadow it: without any, no events need counting
    // (so a price set over a large open cycle answers at once). A rule that ended where this one
    // starts (the version it replaced) prices nothing from then on, though its events may not be
    // re-rated yet: the answer comes before the re-rating job.
    const rules = new Map(
      (await loadPriceRules(db, org))
        .filter(
          (other) =>
            (other.validTo === null || other.validTo > rule.validFrom) &&
            specificity(other) >= specificity(rule) &&
            whyRankedBefore(other, rule),
        )
        .map((r) => [r.priceRuleUuid, r]),
    );
    if (!rules.size) continue;
    const from = openFrom(await listCycles(db, org));
    if (!from) continue;
    const { rows } = (await db.execute(sql`
      select price_rule_uuid::text as uuid, count(*)::int as events from usage_events
       where organization_uuid = ${org} and occurred_at >= ${from.toISOString()}::timestamptz
         and ${RULE_PRICED} and (${fitsRule(rule)})
         and price_rule_uuid = any(${arrayLiteral([...rules.keys()])}::uuid[])
       group by price_rule_uuid`)) as unknown as { rows: { uuid: string; events: number }[] };
    for (const row of rows) {
      const other = rules.get(row.uuid);
      const reason = other && whyRankedBefore(other, rule);
      if (!other || !reason) continue;
      shadows.push({ rule: other, reason, events: Number(row.events) });
    }
  }
  return shadows.sort((a, b) => b.events - a.events).slice(0, MAX_SHADOWS);
}

/** A shadow as the operator API answers it (contract/price-shadows.ts). */
export const shadowJson = ({ rule, reason, events }: Shadow): ShadowJson => ({
  price_rule_uuid: rule.priceRuleUuid,
  organization_uuid: rule.organizationUuid,
  operation: rule.operation,
  eval_type: rule.evalType,
  modality: rule.modality,
  rule_metric: rule.ruleMetric,
  unit_price_usd: formatUsdExact(rule.unitPriceMicros),
  version: rule.version ?? 1,
  events,
  reason,
});
