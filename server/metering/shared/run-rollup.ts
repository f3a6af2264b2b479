// The per-run rollup usage_run_daily: the usage events that name an eval run, summed per
// organization, UTC day and run, so the Eval Runs list groups a cycle's few thousand rows instead of
// its millions of events (docs/eval-runs.md). Every writer of usage keeps it in the transaction that
// writes the events, beside addToRollups: ingestion and imports and late usage (ingest.ts), events
// priced after awaiting a price (awaiting-pricing.ts), re-rating (rerate.ts: costs in place),
// archiving and restoring a month (partitions.ts) and bulk loads (rebuildRollupsSql).
import { sql } from "drizzle-orm";
import type { Tx } from "../../platform/database";
import type { EventRow } from "../ingestion/event-store";
import { utcDay } from "../ingestion/events";
import { arrayLiteral } from "./sql-arrays";

/** What a run's day rows hold besides the sums; folded apart so the database picks the least. */
type RunPart = {
  run: string;
  day: string;
  firstAt: Date;
  lastAt: Date;
  events: number;
  quantity: number;
  costMicros: bigint;
  name: string | null;
  evalUuid: string | null;
  evalType: string;
  workspaceUuid: string | null;
};

/**
 * Folds stored events into parts per run, day and the texts the list shows: the texts' least is
 * left to the database (min() in its collation, as the list over raw events took it), so events
 * with different names travel as different parts of one run's day. Events without a run are left out.
 */
export function runParts(rows: readonly EventRow[]): RunPart[] {
  const byKey = new Map<string, RunPart>();
  for (const r of rows) {
    const run = r.evalRunUuid;
    if (run === null || run === undefined) continue;
    const day = utcDay(r.occurredAt);
    // NUL cannot occur in stored text (events.ts refuses it); "\u0001" marks a null apart from "".
    const key = [
      run,
      day,
      r.name ?? "\u0001",
      r.evalUuid ?? "\u0001",
      r.evalType,
      r.workspaceUuid ?? "",
    ].join("\u0000");
    const p = byKey.get(key);
    if (p) {
      p.events += 1;
      p.quantity += r.quantity ?? 1;
      p.costMicros += r.costMicros;
      if (r.occurredAt < p.firstAt) p.firstAt = r.occurredAt;
      if (r.occurredAt > p.lastAt) p.lastAt = r.occurredAt;
    } else
      byKey.set(key, {
        run,
        day,
        firstAt: r.occurredAt,
        lastAt: r.occurredAt,
        events: 1,
        quantity: r.quantity ?? 1,
        costMicros: r.costMicros,
        name: r.name ?? null,
        evalUuid: r.evalUuid ?? null,
        evalType: r.evalType,
        workspaceUuid: r.workspaceUuid ?? null,
      });
  }
  return [...byKey.values()];
}

/**
 * Adds newly stored events to usage_run_daily: the parts travel as one JSON parameter, grouped per
 * run and day by the database (min() of the texts) and upserted in key order (concurrent writers
 * lock rows in one order); an existing row keeps the least text and the widest span.
 */
export async function addToRunRollup(tx: Tx, organizationUuid: string, rows: readonly EventRow[]) {
  const parts = runParts(rows);
  if (!parts.length) return;
  const json = JSON.stringify(
    parts.map((p) => ({
      run: p.run,
      day: p.day,
      first_at: p.firstAt.toISOString(),
      last_at: p.lastAt.toISOString(),
      events: p.events,
      quantity: p.quantity,
      // A string: JSON numbers would lose precision beyond 2^53.
      cost: String(p.costMicros),
      name: p.name,
      eval_uuid: p.evalUuid,
      eval_type: p.evalType,
      ws: p.workspaceUuid,
    })),
  );
  await tx.execute(sql`
    insert into usage_run_daily (organization_uuid, day, eval_run_uuid, first_at, last_at, event_count,
      quantity_sum, cost_micros_sum, name, eval_uuid, eval_type, workspace_uuid)
    select ${organizationUuid}, day, run, min(first_at), max(last_at), sum(events), sum(quantity), sum(cost),
           min(name), min(eval_uuid), min(eval_type), min(ws)
      from jsonb_to_recordset(${json}::jsonb) as x(run text, day date, first_at timestamptz,
        last_at timestamptz, events bigint, quantity bigint, cost bigint, name text, eval_uuid text,
        eval_type text, ws text)
     group by day, run
     order by day, run
    on conflict on constraint usage_run_daily_pkey do update
       set first_at = least(usage_run_daily.first_at, excluded.first_at),
           last_at = greatest(usage_run_daily.last_at, excluded.last_at),
           event_count = usage_run_daily.event_count + excluded.event_count,
           quantity_sum = usage_run_daily.quantity_sum + excluded.quantity_sum,
           cost_micros_sum = usage_run_daily.cost_micros_sum + excluded.cost_micros_sum,
           name = least(usage_run_daily.name, excluded.name),
           eval_uuid = least(usage_run_daily.eval_uuid, excluded.eval_uuid),
           eval_type = least(usage_run_daily.eval_type, excluded.eval_type),
           workspace_uuid = least(usage_run_daily.workspace_uuid, excluded.workspace_uuid)`);
}

/** An event whose cost changed in place (re-rating): its run, when it bills, and by how much. */
export type RunCostChange = { run: string | null; occurredAt: Date; deltaMicros: bigint };

/**
 * Moves usage_run_daily's costs by re-rated events' differences (their rows exist: the events are
 * counted there already), in key order.
 */
export async function moveRunCosts(tx: Tx, organizationUuid: string, changes: readonly RunCostChange[]) {
  const byKey = new Map<string, { day: string; run: string; delta: bigint }>();
  for (const c of changes) {
    if (c.run === null || c.deltaMicros === 0n) continue;
    const day = utcDay(c.occurredAt);
    const key = `${day}\u0000${c.run}`;
    const d = byKey.get(key);
    if (d) d.delta += c.deltaMicros;
    else byKey.set(key, { day, run: c.run, delta: c.deltaMicros });
  }
  const moves = [...byKey.values()].filter((m) => m.delta !== 0n);
  if (!moves.length) return;
  await tx.execute(sql`
    update usage_run_daily r set cost_micros_sum = r.cost_micros_sum + m.delta
      from (select * from unnest(${arrayLiteral(moves.map((m) => m.day))}::date[],
                                 ${arrayLiteral(moves.map((m) => m.run))}::text[],
                                 ${arrayLiteral(moves.map((m) => String(m.delta)))}::bigint[])
              as m(day, run, delta) order by day, run) m
     where r.organization_uuid = ${organizationUuid} and r.day = m.day and r.eval_run_uuid = m.run`);
}

/**
 * The per-run rollup of one organization's events between two days (inclusive start, exclusive
 * end; whole days, which must hold no rows yet): what rebuildRollupsSql adds for bulk loads. The
 * arguments are SQL literals (the organization's text, the instants of the bounds).
 */
export function rebuildRunRollupSql(org: string, from: string, to: string): string {
  return `insert into usage_run_daily (organization_uuid, day, eval_run_uuid, first_at, last_at, event_count,
                                  quantity_sum, cost_micros_sum, name, eval_uuid, eval_type, workspace_uuid)
     select organization_uuid, (occurred_at at time zone 'UTC')::date, eval_run_uuid, min(occurred_at),
            max(occurred_at), count(*), sum(quantity), sum(cost_micros), min(name), min(eval_uuid),
            min(eval_type), min(workspace_uuid::text)
       from usage_events
      where organization_uuid = ${org} and eval_run_uuid is not null
        and occurred_at >= ${from} and occurred_at < ${to}
      group by 1, 2, 3`;
}

/**
 * Archiving a month takes its events out of usage_events, so out of every run's figures: its rows
 * of usage_run_daily go too (every organization's), and the organizations' usage versions rise so
 * the lists cached per process are computed again. Restoring puts them back from the events.
 */
export async function dropMonthOfRuns(tx: Tx, start: Date, end: Date) {
  await bumpVersionsOfMonth(tx, start, end);
  await tx.execute(sql`
    delete from usage_run_daily
     where day >= ${start.toISOString().slice(0, 10)}::date and day < ${end.toISOString().slice(0, 10)}::date`);
}

export async function restoreMonthOfRuns(tx: Tx, start: Date, end: Date) {
  await tx.execute(sql`
    insert into usage_run_daily (organization_uuid, day, eval_run_uuid, first_at, last_at, event_count,
                                 quantity_sum, cost_micros_sum, name, eval_uuid, eval_type, workspace_uuid)
    select organization_uuid, (occurred_at at time zone 'UTC')::date, eval_run_uuid, min(occurred_at),
           max(occurred_at), count(*), sum(quantity), sum(cost_micros), min(name), min(eval_uuid),
           min(eval_type), min(workspace_uuid::text)
      from usage_events
     where eval_run_uuid is not null
       and occurred_at >= ${start.toISOString()}::timestamptz and occurred_at < ${end.toISOString()}::timestamptz
     group by 1, 2, 3`);
  await bumpVersionsOfMonth(tx, start, end);
}

const bumpVersionsOfMonth = (tx: Tx, start: Date, end: Date) =>
  tx.execute(sql`
    update usage_versions set version = version + 1
     where organization_uuid in (select distinct organization_uuid from usage_run_daily
                                  where day >= ${start.toISOString().slice(0, 10)}::date and day < ${end.toISOString().slice(0, 10)}::date)`);
