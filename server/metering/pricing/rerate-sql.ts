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

/**
 * The best rule of `rules` (a CTE of rankedRules) for every event of `page`, found once per span of
 * time and set of dimensions rather than once per event: between two consecutive valid_from or
 * valid_to of the rules that fit a page's dimensions, the same rules are in force, so the first of
 * them in rank prices every event of that span. A page holds a few dimension sets and spans, so the
 * per-event work is one hash join on the dimensions with a range check, not a sort of the list.
 * Answers (operation, eval_type, modality, rule_metric, at, until, uuid, price): the rule for the
 * events of those dimensions priced in [at, until); a span no rule covers has no row.
 */
const spanWinners = (rules: SQL, page: SQL) => sql`(
  with dims as (select distinct operation, eval_type, modality, rule_metric from ${page}),
  fit as materialized (
    select d.operation, d.eval_type, d.modality, d.rule_metric, r.uuid, r.price, r.valid_from,
           r.valid_to, r.rank
      from dims d join ${rules} r
        on (r.operation is null or r.operation = d.operation)
       and (r.eval_type is null or r.eval_type = d.eval_type)
       and (r.modality is null or r.modality = d.modality)
       and (r.rule_metric is null or r.rule_metric = d.rule_metric)),
  edges as (
    select operation, eval_type, modality, rule_metric, '-infinity'::timestamptz as at from dims
    union select operation, eval_type, modality, rule_metric, valid_from from fit
    union select operation, eval_type, modality, rule_metric, valid_to from fit where valid_to is not null),
  spans as (
    select e.*, coalesce(lead(at) over (partition by operation, eval_type, modality, rule_metric
                                        order by at), 'infinity'::timestamptz) as until
      from edges e)
  select s.operation, s.eval_type, s.modality, s.rule_metric, s.at, s.until, w.uuid, w.price
    from spans s cross join lateral (
      select f.uuid, f.price from fit f
       where f.operation = s.operation and f.eval_type = s.eval_type and f.modality = s.modality
         and f.rule_metric = s.rule_metric
         and f.valid_from <= s.at and (f.valid_to is null or s.at < f.valid_to)
       order by f.rank limit 1) w)`;

/** The join of a page's event `p` to its span's winner `w` (a row of spanWinners). */
const inSpan = (w: string) => {
  const a = sql.raw(w);
  return sql`${a}.operation = p.operation and ${a}.eval_type = p.eval_type and ${a}.modality = p.modality
    and ${a}.rule_metric = p.rule_metric and p.priced_at >= ${a}.at and p.priced_at < ${a}.until`;
};

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
  select tableoid as part, ctid as row_id, usage_event_uuid, occurred_at, coalesce(late_occurred_at, occurred_at) as priced_at,
         operation, eval_type, modality, rule_metric, is_jailbreak, has_ground_truth, eval_run_uuid,
         quantity, unit_price_micros, cost_micros, price_rule_uuid, workspace_uuid
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

/** A page whose rows moved under it between its read and its update (see repricePage). */
export class StalePageError extends Error {
  constructor(updated: number, read: number) {
    super(`re-rating page updated ${updated} of the ${read} events it read: read it again`);
  }
}

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
  // The moves are summed from `changed` (the page's rows before the update, with their new cost):
  // the update returns nothing, and each group is summed once, in one pass, per day and run.
  const result = (await tx.execute(sql`
    with rules as (${rankedRules(rules, organizationUuid)}),
    page as (${pageOf(organizationUuid, where, key, batch)}),
    winners as materialized ${spanWinners(sql`rules`, sql`page`)},
    changed as materialized (
      select p.part, p.row_id, p.usage_event_uuid, p.occurred_at, p.workspace_uuid, p.operation, p.eval_type,
             p.modality, p.is_jailbreak, p.has_ground_truth, p.rule_metric, p.eval_run_uuid,
             p.cost_micros as before, w.price * p.quantity as after, w.uuid as rule, w.price
        from page p join winners w on ${inSpan("w")}
       where (w.uuid <> p.price_rule_uuid or w.price <> p.unit_price_micros)
         and (p.quantity = 0 or w.price <= ${String(maxCostMicros)}::bigint / p.quantity)
    ),
    moved as (
      update usage_events u
         set unit_price_micros = c.price, cost_micros = c.after, price_rule_uuid = c.rule
        from changed c
       where u.tableoid = c.part and u.ctid = c.row_id
         and u.organization_uuid = ${organizationUuid} and u.usage_event_uuid = c.usage_event_uuid
      returning 1
    ),
    groups as materialized (
      select (occurred_at at time zone 'UTC')::date as day, workspace_uuid, operation, eval_type,
             modality, is_jailbreak, has_ground_truth, rule_metric, eval_run_uuid,
             sum(before) as before, sum(after) as after
        from changed group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    last as (select occurred_at, usage_event_uuid from page
              order by occurred_at desc, usage_event_uuid desc limit 1)
    select (select count(*)::int from page) as scanned,
      (select occurred_at::text from last) as last_at,
      (select usage_event_uuid::text from last) as last_id,
      (select count(*)::int from moved) as events,
      (select count(*)::int from changed) as changed,
      (select coalesce(sum(before), 0)::text from groups) as before_micros,
      (select coalesce(sum(after), 0)::text from groups) as after_micros,
      (select coalesce(json_agg(d), '[]'::json) from (
         select day::text as day, workspace_uuid, operation, eval_type, modality, is_jailbreak,
                has_ground_truth, rule_metric, sum(after - before)::text as delta
           from groups group by day, 2, 3, 4, 5, 6, 7, 8
         having sum(after - before) <> 0 order by day, 2, 3, 4, 5, 6, 7, 8) d) as daily,
      (select coalesce(json_agg(x), '[]'::json) from (
         select day::text as day, eval_run_uuid as run, sum(after - before)::text as delta
           from groups where eval_run_uuid is not null group by day, eval_run_uuid
         having sum(after - before) <> 0 order by day, run) x) as runs`)) as unknown as {
    rows: (PageEnd & {
      events: number;
      changed: number;
      before_micros: string;
      after_micros: string;
      daily: DailyJson[] | string;
      runs: { day: string; run: string; delta: string }[] | string;
    })[];
  };
  const row = result.rows[0];
  if (!row) throw new Error("re-rating page answered no row");
  // The moves are summed from the rows read: a row changed by another writer since (so not at the
  // place read) must not count. The page's transaction rolls back and reratePages reads it again.
  if (Number(row.events) !== Number(row.changed))
    throw new StalePageError(Number(row.events), Number(row.changed));
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
    after_winners as materialized ${spanWinners(sql`after_rules`, sql`page`)},
    before_winners as materialized ${spanWinners(sql`before_rules`, sql`page`)},
    priced as (
      select p.workspace_uuid, p.operation, p.eval_type, p.modality, p.rule_metric,
             (a.price - b.price) * p.quantity as delta
        from page p join after_winners a on ${inSpan("a")} join before_winners b on ${inSpan("b")}
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
