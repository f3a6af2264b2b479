/**
 * Re-rating as set-based statements (docs/pricing.md, "Re-rating"): a page of events is priced by
 * the database itself, against the price list passed as arrays and ranked in JavaScript by
 * compareRules (a total order that does not depend on the event), so each event takes the first
 * rule of the list that fits its dimensions and is in force at its time — what createRuleMatcher
 * answers. The changed rows are updated in the same statement, and what the rollups must move by
 * comes back already summed per day and dimensions: no event travels to JavaScript and back.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Tx } from "../../platform/database";
import type { DailyRow } from "../shared/rollups";
import { arrayLiteral } from "../shared/sql-arrays";
import { type CorrectionGroup, mergeGroups } from "./rerate-logic";
import { compareRules, type PriceRule } from "./rule-matching";

/** A page's place: the (occurred_at as stored, uuid) of its last event. */
export type PageKey = { at: string; id: string };

/** The rules an organization's events may be priced by, as a table ranked best first. */
export function rankedRules(rules: readonly PriceRule[], organizationUuid: string): SQL {
  const list = rules
    .filter((r) => r.organizationUuid === null || r.organizationUuid === organizationUuid)
    .sort(compareRules);
  const col = (f: (r: PriceRule) => string | null) => arrayLiteral(list.map(f));
  return sql`select * from unnest(
      ${col((r) => r.priceRuleUuid)}::uuid[], ${col((r) => r.operation)}::text[],
      ${col((r) => r.evalType)}::text[], ${col((r) => r.modality?.toLowerCase() ?? null)}::text[],
      ${col((r) => r.ruleMetric)}::text[], ${col((r) => String(r.unitPriceMicros))}::bigint[],
      ${col((r) => r.validFrom.toISOString())}::timestamptz[],
      ${col((r) => r.validTo?.toISOString() ?? null)}::timestamptz[],
      ${arrayLiteral(list.map((_, i) => String(i)))}::int[])
    as r(uuid, operation, eval_type, modality, rule_metric, price, valid_from, valid_to, rank)`;
}

/** The best rule of `rules` (a CTE of rankedRules) for the event `p`, priced at its time. */
const bestRule = (rules: SQL, columns: SQL) => sql`(
  select ${columns} from ${rules} r
   where (r.operation is null or r.operation = p.operation)
     and (r.eval_type is null or r.eval_type = p.eval_type)
     and (r.modality is null or r.modality = p.modality)
     and (r.rule_metric is null or r.rule_metric = p.rule_metric)
     and r.valid_from <= p.priced_at and (r.valid_to is null or p.priced_at < r.valid_to)
   order by r.rank limit 1)`;

/** The keyset after `key` (a range and a tie-break, so the index answers it with a range scan). */
export const afterKey = (key: PageKey | null, from: Date | null): SQL =>
  key
    ? sql`and occurred_at >= ${key.at}::timestamptz
          and (occurred_at > ${key.at}::timestamptz or usage_event_uuid > ${key.id}::uuid)`
    : from
      ? sql`and occurred_at >= ${from.toISOString()}::timestamptz`
      : sql``;

/** One page of events, in key order, with the time each is priced at (a late event: when it happened). */
const pageOf = (organizationUuid: string, where: SQL, key: SQL, batch: number) => sql`
  select usage_event_uuid, occurred_at, coalesce(late_occurred_at, occurred_at) as priced_at,
         operation, eval_type, modality, rule_metric, quantity, unit_price_micros, cost_micros,
         price_rule_uuid, workspace_uuid
    from usage_events
   where organization_uuid = ${organizationUuid} and price_rule_uuid is not null and not adjustment
     and (${where}) ${key}
   order by occurred_at, usage_event_uuid
   limit ${batch}`;

const pageEnd = sql`
  (select count(*)::int from page) as scanned,
  (select occurred_at::text from page order by occurred_at desc, usage_event_uuid desc limit 1) as last_at,
  (select usage_event_uuid::text from page order by occurred_at desc, usage_event_uuid desc limit 1) as last_id`;

type PageEnd = { scanned: number; last_at: string | null; last_id: string | null };
const nextKey = (r: PageEnd): PageKey | null =>
  r.last_at && r.last_id ? { at: r.last_at, id: r.last_id } : null;

export type RepricedPage = {
  scanned: number;
  /** The last event read: the next page starts after it. */
  last: PageKey | null;
  events: number;
  beforeMicros: bigint;
  afterMicros: bigint;
  /** The rollups' moves (count and quantity unchanged), per day and dimensions. */
  daily: DailyRow[];
  /** usage_run_daily's moves per day and run. */
  runs: { day: string; run: string; delta: bigint }[];
};

type DailyJson = {
  day: string;
  workspace_uuid: string | null;
  operation: string;
  eval_type: string;
  modality: string;
  is_jailbreak: boolean;
  has_ground_truth: boolean;
  rule_metric: string;
  delta: string;
};

/**
 * Prices one page of the organization's rule-priced events that `where` selects by `rules`, and
 * stores the events whose rule or price changes (an event whose new cost would pass `maxCostMicros`
 * keeps its price, as one no rule covers does). Answers the page's end and the moves it made.
 */
export async function repricePage(
  tx: Tx,
  organizationUuid: string,
  rules: readonly PriceRule[],
  where: SQL,
  key: SQL,
  batch: number,
  maxCostMicros: bigint,
): Promise<RepricedPage> {
  const result = (await tx.execute(sql`
    with rules as (${rankedRules(rules, organizationUuid)}),
    page as (${pageOf(organizationUuid, where, key, batch)}),
    changed as (
      select p.usage_event_uuid, p.occurred_at, p.cost_micros as before, b.uuid as rule, b.price
        from page p cross join lateral ${bestRule(sql`rules`, sql`r.uuid, r.price`)} b
       where (b.uuid <> p.price_rule_uuid or b.price <> p.unit_price_micros)
         and (p.quantity = 0 or b.price <= ${String(maxCostMicros)}::bigint / p.quantity)
    ),
    moved as (
      update usage_events u
         set unit_price_micros = c.price, cost_micros = c.price * u.quantity, price_rule_uuid = c.rule
        from changed c
       where u.organization_uuid = ${organizationUuid} and u.usage_event_uuid = c.usage_event_uuid
         and u.occurred_at = c.occurred_at
      returning (u.occurred_at at time zone 'UTC')::date as day, u.workspace_uuid, u.operation,
                u.eval_type, u.modality, u.is_jailbreak, u.has_ground_truth, u.rule_metric,
                u.eval_run_uuid, c.before, u.cost_micros as after
    )
    select ${pageEnd},
      (select count(*)::int from moved) as events,
      (select coalesce(sum(before), 0)::text from moved) as before_micros,
      (select coalesce(sum(after), 0)::text from moved) as after_micros,
      (select coalesce(json_agg(d), '[]'::json) from (
         select day::text as day, workspace_uuid, operation, eval_type, modality, is_jailbreak,
                has_ground_truth, rule_metric, sum(after - before)::text as delta
           from moved group by 1, 2, 3, 4, 5, 6, 7, 8
         having sum(after - before) <> 0 order by 1, 2, 3, 4, 5, 6, 7, 8) d) as daily,
      (select coalesce(json_agg(x), '[]'::json) from (
         select day::text as day, eval_run_uuid as run, sum(after - before)::text as delta
           from moved where eval_run_uuid is not null group by 1, 2
         having sum(after - before) <> 0 order by 1, 2) x) as runs`)) as unknown as {
    rows: (PageEnd & {
      events: number;
      before_micros: string;
      after_micros: string;
      daily: DailyJson[] | string;
      runs: { day: string; run: string; delta: string }[] | string;
    })[];
  };
  const row = result.rows[0];
  if (!row) throw new Error("re-rating page answered no row");
  // node-postgres parses json; PGlite too, but a driver answering text is read the same way.
  const daily = (typeof row.daily === "string" ? JSON.parse(row.daily) : row.daily) as DailyJson[];
  const runs = (typeof row.runs === "string" ? JSON.parse(row.runs) : row.runs) as {
    day: string;
    run: string;
    delta: string;
  }[];
  return {
    scanned: Number(row.scanned),
    last: nextKey(row),
    events: Number(row.events),
    beforeMicros: BigInt(row.before_micros),
    afterMicros: BigInt(row.after_micros),
    daily: daily.map((d) => ({
      organizationUuid,
      day: d.day,
      workspaceUuid: d.workspace_uuid,
      operation: d.operation,
      evalType: d.eval_type,
      modality: d.modality,
      isJailbreak: d.is_jailbreak,
      hasGroundTruth: d.has_ground_truth,
      ruleMetric: d.rule_metric,
      eventCount: 0,
      quantitySum: 0,
      costMicrosSum: BigInt(d.delta),
    })),
    runs: runs.map((r) => ({ day: r.day, run: r.run, delta: BigInt(r.delta) })),
  };
}

/**
 * One page of a closed cycle's events priced by the list before a change and by the list after
 * it, their differences summed per workspace and dimensions in the database (correctionGroups'
 * rule: an event either list leaves unpriced, or whose price does not move, is left out).
 */
export async function correctionPage(
  tx: Tx,
  organizationUuid: string,
  before: readonly PriceRule[],
  after: readonly PriceRule[],
  where: SQL,
  key: SQL,
  batch: number,
  into: CorrectionGroup[],
): Promise<{ scanned: number; last: PageKey | null; groups: CorrectionGroup[] }> {
  const result = (await tx.execute(sql`
    with before_rules as (${rankedRules(before, organizationUuid)}),
    after_rules as (${rankedRules(after, organizationUuid)}),
    page as (${pageOf(organizationUuid, where, key, batch)}),
    priced as (
      select p.workspace_uuid, p.operation, p.eval_type, p.modality, p.rule_metric,
             (${bestRule(sql`after_rules`, sql`r.price`)} - ${bestRule(sql`before_rules`, sql`r.price`)})
               * p.quantity as delta
        from page p
    )
    select ${pageEnd},
      (select coalesce(json_agg(g), '[]'::json) from (
         select workspace_uuid, operation, eval_type, modality, rule_metric, count(*)::int as events,
                sum(delta)::text as delta
           from priced where delta <> 0 group by 1, 2, 3, 4, 5) g) as groups`)) as unknown as {
    rows: (PageEnd & { groups: unknown })[];
  };
  const row = result.rows[0];
  if (!row) throw new Error("correction page answered no row");
  const groups = (typeof row.groups === "string" ? JSON.parse(row.groups) : row.groups) as {
    workspace_uuid: string | null;
    operation: string;
    eval_type: string;
    modality: string;
    rule_metric: string;
    events: number;
    delta: string;
  }[];
  return {
    scanned: Number(row.scanned),
    last: nextKey(row),
    groups: mergeGroups(
      into,
      groups.map((g) => ({
        workspaceUuid: g.workspace_uuid,
        operation: g.operation,
        evalType: g.eval_type,
        modality: g.modality,
        ruleMetric: g.rule_metric,
        events: Number(g.events),
        deltaMicros: BigInt(g.delta),
      })),
    ),
  };
}
