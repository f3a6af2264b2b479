/**
 * The reads of "Explain this charge". Each is ONE statement (a union of the parts it needs), so
 * everything a node shows comes from one snapshot: usage ingested meanwhile can never make the
 * parts of an answer disagree with its total.
 *
 * Events are grouped by the part they belong to, the rule version that priced them and their unit
 * price; each adjustment (cost ≠ quantity × unit price: credits, charges, late-usage and price
 * correction lines) is a row of its own. The daily rollup the bill is read from (usage_daily_coarse,
 * as the billing cycle's totals) comes in the same statement, per workspace: where the events of a
 * month are archived, the rollup still counts them and the difference is shown as unitemized.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../platform/database";
import { type Cycle, cycleBounds } from "../billing/cycles";
import type { UsageRow } from "./explain-lines";

type Rows<T> = { rows: T[] };

type RawRow = {
  src: "e" | "r" | "p";
  key: string | null;
  rule: string | null;
  version: number | string | null;
  price: string | null;
  adj: boolean | string | number | null;
  event_uuid: string | null;
  events: number | string;
  quantity: string | null;
  cost: string;
  notes: string | null;
  at: string | null;
  name: string | null;
  operation: string | null;
  eval_type: string | null;
  rn: number | string | null;
  running: string | null;
};

/** Which events a read takes (within the cycle), and what a row's key is. */
export type Scope = {
  /** The part an event belongs to: its workspace, its eval run, or nothing (one part). */
  key: "workspace" | "eval_run" | "none";
  /** Events of one workspace only (null: without a workspace); undefined: every workspace. */
  workspace?: string | null;
  /** Events of one eval run only (null: without a run); undefined: every run. */
  evalRun?: string | null;
};

const truthy = (v: unknown) => v === true || v === "t" || v === "true" || v === 1 || v === "1";
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

function eventFilter(cycle: Cycle, s: Scope): SQL {
  const { start, end } = cycleBounds(cycle);
  const parts = [
    sql`e.organization_uuid = ${cycle.organizationUuid}`,
    sql`e.occurred_at >= ${start.toISOString()}::timestamptz`,
  ];
  if (end) parts.push(sql`e.occurred_at < ${end.toISOString()}::timestamptz`);
  if (s.workspace !== undefined)
    parts.push(
      s.workspace === null ? sql`e.workspace_uuid is null` : sql`e.workspace_uuid = ${s.workspace}::uuid`,
    );
  if (s.evalRun !== undefined)
    parts.push(s.evalRun === null ? sql`e.eval_run_uuid is null` : sql`e.eval_run_uuid = ${s.evalRun}`);
  return sql.join(parts, sql` and `);
}

function rollupFilter(cycle: Cycle, s: Scope): SQL {
  const parts = [
    sql`d.organization_uuid = ${cycle.organizationUuid}`,
    sql`d.day >= ${cycle.startDate}::date`,
  ];
  if (cycle.endDate) parts.push(sql`d.day < ${cycle.endDate}::date`);
  if (s.workspace !== undefined)
    parts.push(
      s.workspace === null ? sql`d.workspace_uuid is null` : sql`d.workspace_uuid = ${s.workspace}::uuid`,
    );
  return sql.join(parts, sql` and `);
}

/** A price adjustment: the fact stored with the event (never inferred from its arithmetic). */
const ADJ = sql`e.adjustment`;

/** The grouped usage rows of the scope (src 'e'), as one select of the union. */
function groupedSelect(cycle: Cycle, s: Scope): SQL {
  const key =
    s.key === "workspace"
      ? sql`e.workspace_uuid::text`
      : s.key === "eval_run"
        ? sql`e.eval_run_uuid`
        : sql`null::text`;
  return sql`
    select 'e' as src, ${key} as key, e.price_rule_uuid::text as rule, r.version::int as version,
           e.unit_price_micros::text as price, ${ADJ} as adj,
           case when ${ADJ} then e.usage_event_uuid::text end as event_uuid,
           count(*)::int as events, sum(e.quantity)::text as quantity, sum(e.cost_micros)::text as cost,
           min(e.notes) as notes, to_char(min(e.occurred_at) at time zone 'UTC', ${sql.raw(ISO)}) as at,
           min(e.name) as name, null::text as operation, null::text as eval_type,
           null::int as rn, null::text as running
      from usage_events e
      left join price_rules r on r.price_rule_uuid = e.price_rule_uuid
     where ${eventFilter(cycle, s)}
     group by 2, 3, 4, 5, 6, 7`;
}

/** The bill's own figure per workspace (src 'r'): the coarse rollup the cycle's totals are read from. */
function rollupSelect(cycle: Cycle, s: Scope): SQL {
  return sql`
    select 'r' as src, d.workspace_uuid::text as key, null::text as rule, null::int as version,
           null::text as price, false as adj, null::text as event_uuid, 0 as events,
           null::text as quantity, sum(d.cost_micros_sum)::text as cost, null::text as notes,
           null::text as at, null::text as name, null::text as operation, null::text as eval_type,
           null::int as rn, null::text as running
      from usage_daily_coarse d
     where ${rollupFilter(cycle, s)}
     group by d.workspace_uuid`;
}

/**
 * One page of the scope's events (src 'p'), the largest cost first, each with its position and the
 * running sum of the costs up to it (for the pages before it).
 */
function eventPageSelect(cycle: Cycle, s: Scope, offset: number, limit: number): SQL {
  return sql`
    select 'p' as src, t.key, t.rule, t.version, t.price, t.adj, t.event_uuid, 1 as events, t.quantity,
           t.cost, t.notes, t.at, t.name, t.operation, t.eval_type, t.rn, t.running
      from (
        select e.usage_event_uuid::text as key, e.price_rule_uuid::text as rule, r.version::int as version,
               e.unit_price_micros::text as price, ${ADJ} as adj, e.usage_event_uuid::text as event_uuid,
               e.quantity::text as quantity, e.cost_micros::text as cost, e.notes,
               to_char(e.occurred_at at time zone 'UTC', ${sql.raw(ISO)}) as at, e.name, e.operation,
               e.eval_type,
               (row_number() over w)::int as rn,
               (sum(e.cost_micros) over (w rows between unbounded preceding and current row))::text as running
          from usage_events e
          left join price_rules r on r.price_rule_uuid = e.price_rule_uuid
         where ${eventFilter(cycle, s)}
        window w as (order by e.cost_micros desc, e.occurred_at, e.usage_event_uuid)
      ) t
     where t.rn > ${offset} and t.rn <= ${offset + limit}`;
}

export type PageEvent = UsageRow & {
  name: string | null;
  operation: string;
  evalType: string;
  rn: number;
  runningMicros: bigint;
};

function usageRow(r: RawRow): UsageRow {
  return {
    key: r.key,
    ruleUuid: r.rule,
    ruleVersion: r.version === null ? null : Number(r.version),
    unitPriceMicros: BigInt(r.price ?? "0"),
    adjustment: truthy(r.adj),
    eventUuid: r.event_uuid,
    events: Number(r.events),
    quantity: Number(r.quantity ?? 0),
    costMicros: BigInt(r.cost),
    notes: r.notes,
    occurredAt: r.at,
  };
}

/**
 * The scope's grouped usage rows, the rollup's cost per workspace (when `rollup`), the eval name of
 * each key, and (when `page` is given) one page of its events: one statement.
 */
export async function readScope(
  db: Db,
  cycle: Cycle,
  scope: Scope,
  opts: { rollup: boolean; page?: { offset: number; limit: number } },
) {
  const selects = [groupedSelect(cycle, scope)];
  if (opts.rollup) selects.push(rollupSelect(cycle, scope));
  if (opts.page) selects.push(eventPageSelect(cycle, scope, opts.page.offset, opts.page.limit));
  const result = (await db.execute(sql.join(selects, sql` union all `))) as unknown as Rows<RawRow>;
  const rows: UsageRow[] = [];
  const rollup = new Map<string | null, bigint>();
  const names = new Map<string | null, string>();
  const page: PageEvent[] = [];
  for (const r of result.rows) {
    if (r.src === "r") rollup.set(r.key, (rollup.get(r.key) ?? 0n) + BigInt(r.cost));
    else if (r.src === "p")
      page.push({
        ...usageRow(r),
        name: r.name,
        operation: r.operation ?? "",
        evalType: r.eval_type ?? "",
        rn: Number(r.rn),
        runningMicros: BigInt(r.running ?? "0"),
      });
    else {
      rows.push(usageRow(r));
      if (r.name && !names.has(r.key)) names.set(r.key, r.name);
    }
  }
  page.sort((a, b) => a.rn - b.rn);
  return { rows, rollup, names, page };
}
