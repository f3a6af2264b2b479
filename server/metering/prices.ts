import { and, type Column, eq, isNull, lt, or, sql } from "drizzle-orm";
import { priceRules } from "../db/schema";
import type { Db, Tx } from "../platform/database";
import { formatUsdExact, parseUsd } from "../../contract/money";
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

export const PRICE_SET_USAGE =
  "Usage: tsx server/main.ts price set --operation <op> --eval-type <type> --unit-price <usd>\n" +
  "         [--modality <m>] [--rule-metric eval|prompt] [--org <organization uuid>] [--valid-from <ISO date-time>]\n" +
  "       Omitted dimensions match anything; without --org the rule joins the global price list.";

const FLAGS: Record<string, keyof PriceRuleInput> = {
  "--operation": "operation",
  "--eval-type": "evalType",
  "--modality": "modality",
  "--rule-metric": "ruleMetric",
  "--org": "organizationUuid",
  "--unit-price": "unitPrice",
  "--valid-from": "validFrom",
};

/** Reads `set --flag value …` (the words after `price`); an error message instead of a rule when wrong. */
export function parsePriceSetArgs(
  args: readonly string[],
): { ok: true; input: PriceRuleInput } | { ok: false; error: string } {
  const [action, ...rest] = args;
  if (action !== "set") return { ok: false, error: PRICE_SET_USAGE };
  const values: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i] ?? "";
    const [name, inline] = flag.includes("=") ? flag.split(/=(.*)/s) : [flag, undefined];
    const key = FLAGS[name ?? ""];
    if (!key) return { ok: false, error: `Unknown option "${flag}".\n${PRICE_SET_USAGE}` };
    const value = inline ?? rest[i + 1];
    if (inline !== undefined) i -= 1;
    if (value === undefined || value.startsWith("--")) return { ok: false, error: `${name} needs a value.` };
    values[key] = value;
  }
  if (!values.unitPrice) return { ok: false, error: `--unit-price is required.\n${PRICE_SET_USAGE}` };
  let unitPrice: bigint;
  try {
    unitPrice = parseUsd(values.unitPrice);
  } catch (err) {
    return { ok: false, error: `--unit-price: ${(err as Error).message}.` };
  }
  if (unitPrice < 0n) return { ok: false, error: "--unit-price cannot be negative." };
  const metric = values.ruleMetric;
  if (metric !== undefined && metric !== "eval" && metric !== "prompt")
    return { ok: false, error: '--rule-metric must be "eval" or "prompt".' };
  let validFrom: Date | undefined;
  if (values.validFrom !== undefined) {
    validFrom = new Date(values.validFrom);
    if (Number.isNaN(validFrom.getTime()))
      return { ok: false, error: "--valid-from must be an ISO 8601 date-time." };
  }
  return {
    ok: true,
    input: {
      organizationUuid: values.organizationUuid ?? null,
      operation: values.operation ?? null,
      evalType: values.evalType ?? null,
      modality: values.modality ?? null,
      ruleMetric: metric ?? null,
      unitPrice,
      ...(validFrom ? { validFrom } : {}),
    },
  };
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
