import { and, type Column, eq, isNull, lt, or, sql } from "drizzle-orm";
import { formatUsdExact, parseUsd } from "../../contract/money";
import { priceRules } from "../db/schema";
import type { Db, Tx } from "../platform/database";
import type { PriceRule, RuleMetric } from "./pricing";

export type PriceRuleInput = {
  /** null or omitted: the global default price list. */
  organizationUuid?: string | null;
  operation?: string | null;
  evalType?: string | null;
  modality?: string | null;
  ruleMetric?: RuleMetric | null;
  /** USD per unit as a decimal string ("0.0125") or micro-dollars. */
  unitPrice: string | bigint;
  /** Default: now. */
  validFrom?: Date;
};

const blankToNull = (v: string | null | undefined) => (v?.trim() ? v.trim() : null);

/**
 * Sets the price for one combination of dimensions from validFrom on: the rule currently open for
 * exactly the same dimensions (if it started earlier) ends at validFrom, and a new rule starts.
 * Returns the new rule.
 */
export async function setPriceRule(db: Db, input: PriceRuleInput): Promise<PriceRule> {
  const unitPriceMicros = typeof input.unitPrice === "bigint" ? input.unitPrice : parseUsd(input.unitPrice);
  if (unitPriceMicros < 0n) throw new RangeError("A unit price cannot be negative.");
  const dims = {
    organizationUuid: blankToNull(input.organizationUuid),
    operation: blankToNull(input.operation),
    evalType: blankToNull(input.evalType),
    modality: blankToNull(input.modality)?.toLowerCase() ?? null,
    ruleMetric: input.ruleMetric ?? null,
  };
  const validFrom = input.validFrom ?? new Date();
  const same = (col: Column, v: string | null) => (v === null ? isNull(col) : eq(col, v));
  return db.transaction(async (tx: Tx) => {
    await tx
      .update(priceRules)
      .set({ validTo: validFrom })
      .where(
        and(
          same(priceRules.organizationUuid, dims.organizationUuid),
          same(priceRules.operation, dims.operation),
          same(priceRules.evalType, dims.evalType),
          same(priceRules.modality, dims.modality),
          same(priceRules.ruleMetric, dims.ruleMetric),
          lt(priceRules.validFrom, validFrom),
          or(isNull(priceRules.validTo), sql`${priceRules.validTo} > ${validFrom.toISOString()}`),
        ),
      );
    const [row] = await tx
      .insert(priceRules)
      .values({ ...dims, unitPriceMicros, validFrom })
      .returning();
    if (!row) throw new Error("price rule not inserted");
    return toRule(row);
  });
}

export function toRule(row: typeof priceRules.$inferSelect): PriceRule {
  return {
    priceRuleUuid: row.priceRuleUuid,
    organizationUuid: row.organizationUuid,
    operation: row.operation,
    evalType: row.evalType,
    modality: row.modality,
    ruleMetric: row.ruleMetric,
    unitPriceMicros: row.unitPriceMicros,
    validFrom: row.validFrom,
    validTo: row.validTo,
  };
}

/** The organization's own rules plus the global price list. */
export async function loadPriceRules(db: Db | Tx, organizationUuid: string): Promise<PriceRule[]> {
  const rows = await db
    .select()
    .from(priceRules)
    .where(or(isNull(priceRules.organizationUuid), eq(priceRules.organizationUuid, organizationUuid)));
  return rows.map(toRule);
}

/** One line describing a rule, for the CLI. */
export function describeRule(r: PriceRule): string {
  const dims = [
    `operation=${r.operation ?? "*"}`,
    `eval_type=${r.evalType ?? "*"}`,
    `modality=${r.modality ?? "*"}`,
    `rule_metric=${r.ruleMetric ?? "*"}`,
  ].join(" ");
  return `Price rule ${r.priceRuleUuid}: ${r.organizationUuid ? `organization ${r.organizationUuid}` : "global"} ${dims} unit price $${formatUsdExact(r.unitPriceMicros)} from ${r.validFrom.toISOString()}`;
}
