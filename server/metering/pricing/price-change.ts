/**
 * What follows a committed price change, for every organization it may price (its own, or every
 * organization with usage for a global rule): the open cycle's events re-rated (rerate.ts), the
 * closed cycles' difference billed as correction lines in the open cycle (closed-corrections.ts),
 * and, with an actor, one audit entry per organization whose bill moved, with the affected events'
 * totals before and after.
 */
import { sql } from "drizzle-orm";
import { formatUsdExact } from "../../../contract/money";
import { type Actor, writeAudit } from "../../platform/audit";
import type { Db } from "../../platform/database";
import { type Correction, correctClosedCycles } from "./closed-corrections";
import { rerateOpenCycle } from "./rerate";
import type { PriceRule } from "./rule-matching";

export type RerateSummary = {
  /** Organizations whose open cycle or closed cycles the change moved. */
  organizations: number;
  /** Open-cycle events re-priced, and their total cost before and after. */
  events: number;
  beforeMicros: bigint;
  afterMicros: bigint;
  corrections: Correction[];
};

export const NO_RERATE: RerateSummary = {
  organizations: 0,
  events: 0,
  beforeMicros: 0n,
  afterMicros: 0n,
  corrections: [],
};

/** The organizations a rule may price: its own, or every one with usage for a global rule. */
export async function organizationsOf(db: Db, rule: PriceRule): Promise<string[]> {
  if (rule.organizationUuid) return [rule.organizationUuid];
  const rows = (await db.execute(
    sql`select organization_uuid from usage_versions order by organization_uuid`,
  )) as unknown as { rows: { organization_uuid: string }[] };
  return rows.rows.map((r) => r.organization_uuid);
}

/**
 * Re-rates after `rule` was set; `beforeRules` is the price list just before (for the closed
 * cycles' differences). Safe to run again for the same rule: the open cycle's events already at
 * their price are left alone and correction lines are stored once.
 */
export async function rerateAfterPriceChange(
  db: Db,
  rule: PriceRule,
  beforeRules: readonly PriceRule[],
  opts: { actor?: Actor; now?: Date; batch?: number } = {},
): Promise<RerateSummary> {
  const summary: RerateSummary = { ...NO_RERATE, corrections: [] };
  for (const org of await organizationsOf(db, rule)) {
    const open = await rerateOpenCycle(db, org, rule, opts);
    const corrections = await correctClosedCycles(db, org, rule, beforeRules, opts);
    const corrected = corrections.filter((c) => c.lines > 0);
    if (!open.events && !corrected.length) continue;
    summary.organizations += 1;
    summary.events += open.events;
    summary.beforeMicros += open.beforeMicros;
    summary.afterMicros += open.afterMicros;
    summary.corrections.push(...corrected);
    if (opts.actor)
      await writeAudit(db, {
        organizationUuid: org,
        actor: opts.actor,
        action: "price_rule.rerated",
        target: { type: "price_rule", id: rule.priceRuleUuid, label: `version ${rule.version ?? 1}` },
        before: { events: open.events, total: formatUsdExact(open.beforeMicros) },
        after: {
          events: open.events,
          total: formatUsdExact(open.afterMicros),
          valid_from: rule.validFrom.toISOString(),
          closed_cycle_corrections: corrected.map((c) => ({
            billing_cycle_uuid: c.billingCycleUuid,
            period_start: c.periodStart,
            period_end: c.periodEnd,
            events: c.events,
            amount: formatUsdExact(c.amountMicros),
          })),
        },
      });
  }
  return summary;
}

/** The summary as the operator API answers it (money as exact decimal strings). */
export type RerateJson = {
  organizations: number;
  events: number;
  before_total: string;
  after_total: string;
  corrections: {
    organization_uuid: string;
    billing_cycle_uuid: string;
    period_start: string;
    period_end: string;
    events: number;
    lines: number;
    amount: string;
  }[];
};

export const rerateJson = (s: RerateSummary): RerateJson => ({
  organizations: s.organizations,
  events: s.events,
  before_total: formatUsdExact(s.beforeMicros),
  after_total: formatUsdExact(s.afterMicros),
  corrections: s.corrections.map((c) => ({
    organization_uuid: c.organizationUuid,
    billing_cycle_uuid: c.billingCycleUuid,
    period_start: c.periodStart,
    period_end: c.periodEnd,
    events: c.events,
    lines: c.lines,
    amount: formatUsdExact(c.amountMicros),
  })),
});

/** The re-rating as the command line prints it under the new rule's line. */
export function rerateLines(r: RerateJson): string[] {
  const lines = [
    r.events
      ? `Re-rated ${r.events.toLocaleString("en-US")} ${r.events === 1 ? "event" : "events"} of the open cycle (${r.organizations} ${r.organizations === 1 ? "organization" : "organizations"}): $${r.before_total} before, $${r.after_total} after.`
      : "No event of an open cycle changed price.",
  ];
  for (const c of r.corrections)
    lines.push(
      `Closed cycle ${c.period_start} to ${c.period_end} of organization ${c.organization_uuid}: ${c.events} ${c.events === 1 ? "event" : "events"} priced differently, corrected by $${c.amount} in the open cycle (${c.lines} ${c.lines === 1 ? "line" : "lines"}).`,
    );
  return lines;
}
