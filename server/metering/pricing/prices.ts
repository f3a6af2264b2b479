import { and, type Column, desc, eq, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import { formatUsdExact, parseUsd } from "../../../contract/money";
import { priceRules } from "../../db/schema";
import { type Actor, writeAudit } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { runUntilDone, setJobTotal } from "../../platform/jobs";
import { type RerateSummary, rerateTotal } from "./price-change";
import { type Shadow, shadowsOf } from "./price-shadows";
import { enqueueRerating, rerateResultOf, rerateRunnerOptions } from "./rerate-job";
import type { PriceRule, RuleMetric } from "./rule-matching";

/**
 * The earliest and latest valid_from a price may be set with: usage is never older than 2000
 * (limits.ts) and a date past 2100 is a typing mistake, not a plan; both the API and the CLI
 * refuse outside, so no rule can be stored that the date types or the reports cannot handle.
 */
export const EARLIEST_VALID_FROM = new Date("2000-01-01T00:00:00Z");
export const LATEST_VALID_FROM = new Date("2100-01-01T00:00:00Z");

export const VALID_FROM_RANGE = "valid_from must be from 2000-01-01 to 2100-01-01 (UTC).";

export const validFromInRange = (d: Date) =>
  !Number.isNaN(d.getTime()) &&
  d.getTime() >= EARLIEST_VALID_FROM.getTime() &&
  d.getTime() <= LATEST_VALID_FROM.getTime();

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
 * Returns the new rule. With an actor, the change's audit row is written in its transaction. Once
 * it is committed, the events awaiting pricing that the rule now covers (of its organization, or
 * of every organization for a global rule) are priced, in transactions of their own
 * (awaiting-pricing.ts); then the usage already priced is re-rated (price-change.ts): the open
 * cycle's events exactly, the closed cycles' difference as correction lines in the open cycle. The
 * answer carries what the re-rating did, and the rules that still price some of the open cycle's
 * events the new rule fits because they outrank it (price-shadows.ts).
 */
export async function setPriceRule(
  db: Db,
  input: PriceRuleInput,
  actor?: Actor,
): Promise<PriceRule & { rerating: RerateSummary; shadowedBy: Shadow[] }> {
  const { rule, jobUuid } = await storePriceRule(db, input, actor);
  const job = await runUntilDone(db, jobUuid, rerateRunnerOptions(db, SILENT));
  const rerating = rerateResultOf(job);
  if (!rerating) throw new Error(`re-rating failed: ${job.error ?? job.state}`);
  return { ...rule, rerating, shadowedBy: await shadowsOf(db, rule) };
}

const SILENT = { info: () => {}, error: () => {} };

/**
 * Stores a price (see setPriceRule) with the job that re-rates after it, in one transaction, and
 * counts what the job will read: answers at once, the work runs as the job (rerate-job.ts).
 */
export async function storePriceRule(
  db: Db,
  input: PriceRuleInput,
  actor?: Actor,
): Promise<{ rule: PriceRule; jobUuid: string; total: number }> {
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
  if (!validFromInRange(validFrom)) throw new RangeError(VALID_FROM_RANGE);
  const same = (col: Column, v: string | null) => (v === null ? isNull(col) : eq(col, v));
  const lineage = and(
    same(priceRules.organizationUuid, dims.organizationUuid),
    same(priceRules.operation, dims.operation),
    same(priceRules.evalType, dims.evalType),
    same(priceRules.modality, dims.modality),
    same(priceRules.ruleMetric, dims.ruleMetric),
  );
  const created = await db.transaction(async (tx: Tx) => {
    // One rule of a lineage is set at a time, so two prices set at once get distinct versions.
    const key = JSON.stringify(Object.values(dims));
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`price_rules:${key}`}, 0))`);
    const [latest] = await tx
      .select({ version: sql<number>`coalesce(max(${priceRules.version}), 0)::integer` })
      .from(priceRules)
      .where(lineage);
    const version = Number(latest?.version ?? 0) + 1;
    // The price list just before this change, for the closed cycles' differences.
    const before = await loadPriceRules(tx, dims.organizationUuid ?? undefined);
    const ended = await tx
      .update(priceRules)
      .set({ validTo: validFrom })
      .where(
        and(
          lineage,
          // A rule from the same time is replaced too (it ends where it starts): otherwise two rules
          // would tie and their uuids, not the order they were set in, would choose.
          lte(priceRules.validFrom, validFrom),
          or(isNull(priceRules.validTo), sql`${priceRules.validTo} > ${validFrom.toISOString()}`),
        ),
      )
      .returning({ priceRuleUuid: priceRules.priceRuleUuid });
    const [row] = await tx
      .insert(priceRules)
      .values({ ...dims, unitPriceMicros, validFrom, version })
      .returning();
    if (!row) throw new Error("price rule not inserted");
    const rule = toRule(row);
    if (actor)
      await writeAudit(tx, {
        organizationUuid: rule.organizationUuid,
        actor,
        action: "price_rule.created",
        target: { type: "price_rule", id: rule.priceRuleUuid, label: describeDimensions(rule) },
        after: {
          operation: rule.operation,
          eval_type: rule.evalType,
          modality: rule.modality,
          rule_metric: rule.ruleMetric,
          unit_price_usd: formatUsdExact(rule.unitPriceMicros),
          valid_from: rule.validFrom.toISOString(),
          version: rule.version,
          ended_price_rule_uuids: ended.map((e) => e.priceRuleUuid),
        },
      });
    const after = await loadPriceRules(tx, dims.organizationUuid ?? undefined);
    return { rule, jobUuid: await enqueueRerating(tx, rule, before, after, actor ?? null) };
  });
  const total = await rerateTotal(db, created.rule);
  await setJobTotal(db, created.jobUuid, total);
  return { ...created, total };
}

/** Where a rule stands at `now`: in force, not yet, or over. */
export function priceRuleStatus(r: Pick<PriceRule, "validFrom" | "validTo">, now = new Date()) {
  if (r.validTo !== null && r.validTo.getTime() <= now.getTime()) return "ended" as const;
  return r.validFrom.getTime() > now.getTime() ? ("scheduled" as const) : ("active" as const);
}

/**
 * Every version of the price rules, ended ones too, newest valid_from first: of one organization
 * (its own rules only), of the global list (`null`), or all of them (`undefined`).
 */
export async function listPriceRules(db: Db, organizationUuid?: string | null): Promise<PriceRule[]> {
  let where: SQL | undefined;
  if (organizationUuid === null) where = isNull(priceRules.organizationUuid);
  else if (organizationUuid !== undefined) where = eq(priceRules.organizationUuid, organizationUuid);
  const rows = await db
    .select()
    .from(priceRules)
    .where(where)
    .orderBy(desc(priceRules.validFrom), desc(priceRules.createdAt), desc(priceRules.priceRuleUuid));
  return rows.map(toRule);
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
    builtIn: row.builtIn,
    version: row.version,
  };
}

/** The organization's own rules plus the global price list (every rule, without an organization). */
export async function loadPriceRules(db: Db | Tx, organizationUuid?: string): Promise<PriceRule[]> {
  const rows = await db
    .select()
    .from(priceRules)
    .where(
      organizationUuid === undefined
        ? undefined
        : or(isNull(priceRules.organizationUuid), eq(priceRules.organizationUuid, organizationUuid)),
    );
  return rows.map(toRule);
}

/** A rule's dimensions as "operation=… eval_type=… modality=… rule_metric=…" ("*": any). */
const describeDimensions = (r: PriceRule) =>
  [
    `operation=${r.operation ?? "*"}`,
    `eval_type=${r.evalType ?? "*"}`,
    `modality=${r.modality ?? "*"}`,
    `rule_metric=${r.ruleMetric ?? "*"}`,
  ].join(" ");

/** One line describing a rule, for the CLI. */
export function describeRule(r: PriceRule): string {
  const dims = describeDimensions(r);
  return `Price rule ${r.priceRuleUuid}: ${r.organizationUuid ? `organization ${r.organizationUuid}` : "global"} ${dims} unit price $${formatUsdExact(r.unitPriceMicros)} from ${r.validFrom.toISOString()}`;
}
