// Eval runs: the runs of a billing cycle with their cost, summed from the usage events that carry
// an eval_run_uuid (the list from their per-run daily rollup usage_run_daily, one run's page from
// the events themselves; exact sums in micros), joined with the runs started through
// POST /v1/eval-runs (eval_runs) so that a started run shows before its first event.
import { type SQL, sql } from "drizzle-orm";
import type { OutcomeFigures } from "../../../contract/eval-run-figures";
import type { EvalRun, EvalRunDetail, EvalRunSortField } from "../../../contract/eval-runs";
import { formatUsdExact } from "../../../contract/money";
import { evalRuns } from "../../db/schema";
import type { Db, Tx } from "../../platform/database";
import { type Cycle, cycleBounds, cyclesOrCurrent } from "../billing/cycles";
import { NO_WORKSPACE, UNKNOWN_WORKSPACE } from "./sql";

type Rows<T> = { rows: T[] };

type RunRow = {
  run: string;
  eval_name: string | null;
  eval_uuid: string | null;
  eval_type: string | null;
  ws: string | null;
  workspace_name: string | null;
  started_by: string | null;
  started_at: string | Date;
  last_at: string | Date | null;
  events: string | number;
  quantity: string | number;
  cost: string | number;
  total?: string | number;
};

const iso = (v: string | Date) => new Date(v).toISOString();

function runJson(r: RunRow): EvalRun {
  return {
    eval_run_uuid: r.run,
    eval_name: r.eval_name,
    eval_uuid: r.eval_uuid,
    eval_type: r.eval_type,
    workspace_uuid: r.ws,
    workspace_name: r.ws === null ? NO_WORKSPACE : (r.workspace_name ?? UNKNOWN_WORKSPACE),
    started_by: r.started_by,
    started_at: iso(r.started_at),
    last_event_at: r.last_at === null ? null : iso(r.last_at),
    events: Number(r.events),
    quantity: Number(r.quantity),
    cost: formatUsdExact(BigInt(r.cost)),
  };
}

/** usage_events of the cycle (the partitions of its months only: the bounds prune the others). */
function inCycle(cycle: Cycle, column: SQL) {
  const { start, end } = cycleBounds(cycle);
  return end
    ? sql`${column} >= ${start.toISOString()}::timestamptz and ${column} < ${end.toISOString()}::timestamptz`
    : sql`${column} >= ${start.toISOString()}::timestamptz`;
}

/**
 * The cycle's runs that its events name, one row each with the sums over the cycle's events: for
 * the whole list, from the cycle's days of usage_run_daily (a few rows per run; its day rows hold
 * the same sums, least texts and span as the events, so the results are the same); for one run,
 * from its events through usage_events_org_run_idx.
 */
function eventRuns(cycle: Cycle, run?: string) {
  const org = cycle.organizationUuid;
  if (run === undefined)
    return sql`
      select r.eval_run_uuid as run, min(r.first_at) as first_at, max(r.last_at) as last_at,
        sum(r.event_count) as events, coalesce(sum(r.quantity_sum), 0) as quantity,
        coalesce(sum(r.cost_micros_sum), 0) as cost, min(r.name) as name, min(r.eval_uuid) as eval_uuid,
        min(r.eval_type) as eval_type, min(r.workspace_uuid) as ws
      from usage_run_daily r
      where r.organization_uuid = ${org} and r.day >= ${cycle.startDate}::date${
        cycle.endDate ? sql` and r.day < ${cycle.endDate}::date` : sql``
      }
      group by r.eval_run_uuid`;
  return sql`
      select e.eval_run_uuid as run, min(e.occurred_at) as first_at, max(e.occurred_at) as last_at,
        count(*) as events, coalesce(sum(e.quantity), 0) as quantity, coalesce(sum(e.cost_micros), 0) as cost,
        min(e.name) as name, min(e.eval_uuid) as eval_uuid, min(e.eval_type) as eval_type,
        min(e.workspace_uuid::text) as ws
      from usage_events e
      where e.organization_uuid = ${org} and e.eval_run_uuid is not null and ${inCycle(cycle, sql`e.occurred_at`)}
        and e.eval_run_uuid = ${run}
      group by e.eval_run_uuid`;
}

/**
 * The cycle's runs, one row each: the runs its events name (sums over the cycle's events) and the
 * runs started within it that have no event in it yet. Name, eval type and workspace as started,
 * else the events' (the first in alphabetical order when they disagree).
 */
function runsOfCycle(cycle: Cycle, run?: string) {
  const org = cycle.organizationUuid;
  const oneStarted = run === undefined ? sql`` : sql` and s.eval_run_uuid = ${run}`;
  return sql`
    with ev as (${eventRuns(cycle, run)}), runs as (
      select run, first_at, last_at, events, quantity, cost, name, eval_uuid, eval_type, ws from ev
      union all
      select s.eval_run_uuid, null, null, 0, 0, 0, null, null, null, null from eval_runs s
      where s.organization_uuid = ${org} and ${inCycle(cycle, sql`s.started_at`)}${oneStarted}
        and not exists (select 1 from ev where ev.run = s.eval_run_uuid)
    )
    select runs.run, coalesce(r.name, runs.name) as eval_name, runs.eval_uuid,
      coalesce(r.eval_type, runs.eval_type) as eval_type, coalesce(r.workspace_uuid::text, runs.ws) as ws,
      r.started_by_email as started_by, least(r.started_at, runs.first_at) as started_at,
      runs.last_at, runs.events, runs.quantity, runs.cost
    from runs left join eval_runs r on r.eval_run_uuid = runs.run and r.organization_uuid = ${org}`;
}

/** A run of the cycle as the list keeps it: its workspace's name is looked up per request. */
export type CycleRun = Omit<EvalRun, "workspace_name" | "cost"> & { costMicros: bigint };

const cycleRunOf = (r: RunRow): CycleRun => {
  const { workspace_name: _name, cost, ...rest } = runJson({ ...r, workspace_name: null });
  return { ...rest, costMicros: BigInt(r.cost) };
};

/** Every run of the cycle, unsorted: one grouping of the cycle's run events (see runsOfCycle). */
export async function cycleRuns(db: Db, cycle: Cycle): Promise<CycleRun[]> {
  const result = (await db.execute(runsOfCycle(cycle))) as unknown as Rows<RunRow>;
  return result.rows.map(cycleRunOf);
}

export type EvalRunQuery = {
  workspaceUuids: string[];
  search: string | null;
  sort: EvalRunSortField;
  descending: boolean;
  page: number;
  pageSize: number;
};

const compareBy: Record<EvalRunSortField, (a: CycleRun, b: CycleRun) => number> = {
  // ISO 8601 UTC instants of one format sort as text.
  started_at: (a, b) => (a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : 0),
  cost: (a, b) => (a.costMicros < b.costMicros ? -1 : a.costMicros > b.costMicros ? 1 : 0),
  events: (a, b) => a.events - b.events,
};

/**
 * One page of the cycle's runs, filtered (workspace: strict, unlike the records' filter, a run
 * without a workspace is in none of the chosen ones; search: case-insensitive substring of the run
 * id or the eval name) and sorted (ties by run id, same direction), with how many match in all.
 */
export function pageOfRuns(runs: readonly CycleRun[], names: ReadonlyMap<string, string>, q: EvalRunQuery) {
  const chosen = new Set(q.workspaceUuids);
  const text = q.search?.toLowerCase() ?? "";
  const kept = runs.filter(
    (r) =>
      (chosen.size === 0 || (r.workspace_uuid !== null && chosen.has(r.workspace_uuid))) &&
      (!text ||
        r.eval_run_uuid.toLowerCase().includes(text) ||
        (r.eval_name ?? "").toLowerCase().includes(text)),
  );
  const dir = q.descending ? -1 : 1;
  const byRun = (a: CycleRun, b: CycleRun) =>
    a.eval_run_uuid < b.eval_run_uuid ? -1 : a.eval_run_uuid > b.eval_run_uuid ? 1 : 0;
  kept.sort((a, b) => dir * (compareBy[q.sort](a, b) || byRun(a, b)));
  const page = kept.slice((q.page - 1) * q.pageSize, q.page * q.pageSize).map(
    ({ costMicros, ...r }): EvalRun => ({
      ...r,
      workspace_name:
        r.workspace_uuid === null ? NO_WORKSPACE : (names.get(r.workspace_uuid) ?? UNKNOWN_WORKSPACE),
      cost: formatUsdExact(costMicros),
    }),
  );
  return { runs: page, total: kept.length };
}

/**
 * The billing cycle a run belongs to when none is named: the one holding its first event (or its
 * start, for a run started here without events), else the current one.
 */
export async function cycleOfRun(db: Db, organizationUuid: string, run: string): Promise<Cycle | undefined> {
  const result = (await db.execute(sql`
    select least(
      (select min(occurred_at) from usage_events
        where organization_uuid = ${organizationUuid} and eval_run_uuid = ${run}),
      (select started_at from eval_runs
        where organization_uuid = ${organizationUuid} and eval_run_uuid = ${run})
    ) as at`)) as unknown as Rows<{ at: string | Date | null }>;
  const at = result.rows[0]?.at;
  const cycles = await cyclesOrCurrent(db, organizationUuid);
  const current = cycles.find((c) => c.endDate === null) ?? cycles[cycles.length - 1];
  if (!at) return current;
  const instant = new Date(at).getTime();
  const holds = (c: Cycle) => {
    const { start, end } = cycleBounds(c);
    return start.getTime() <= instant && (end === null || instant < end.getTime());
  };
  return cycles.find(holds) ?? current;
}

type OperationRow = { operation: string; events: string | number; quantity: string | number; cost: string };

/** A run's figures in a cycle and its cost per operation; null when the cycle knows no such run. */
export async function evalRunDetail(
  db: Db,
  cycle: Cycle,
  run: string,
): Promise<Omit<EvalRunDetail, "billing_cycle_uuid" | "reservation" | keyof OutcomeFigures> | null> {
  const org = cycle.organizationUuid;
  const [summary, operations] = await Promise.all([
    db.execute(sql`
      select s.*, w.name as workspace_name from (${runsOfCycle(cycle, run)}) s
      left join workspaces w on w.workspace_uuid::text = s.ws and w.organization_uuid = ${org}`),
    db.execute(sql`
      select operation, count(*) as events, coalesce(sum(quantity), 0) as quantity,
        coalesce(sum(cost_micros), 0)::text as cost
      from usage_events
      where organization_uuid = ${org} and eval_run_uuid = ${run} and ${inCycle(cycle, sql`occurred_at`)}
      group by operation
      order by sum(cost_micros) desc, operation asc`),
  ]);
  const row = (summary as unknown as Rows<RunRow>).rows[0];
  if (!row) return null;
  return {
    ...runJson(row),
    operations: (operations as unknown as Rows<OperationRow>).rows.map((o) => ({
      operation: o.operation,
      events: Number(o.events),
      quantity: Number(o.quantity),
      cost: formatUsdExact(BigInt(o.cost)),
    })),
  };
}

/** Records a run an eval service starts; the caller checked access and the allowance. */
export async function startEvalRun(
  db: Db | Tx,
  input: {
    organizationUuid: string;
    workspaceUuid: string;
    name: string | null;
    evalType: string | null;
    /** apiKeyId: the key the run was started with; null with a bearer token. */
    startedBy: { userId: string; email: string; apiKeyId: string | null };
    /** The estimate reserved against hard limits (micro-dollars); null without one. */
    reservedMicros?: bigint | null;
  },
) {
  const [row] = await db
    .insert(evalRuns)
    .values({
      organizationUuid: input.organizationUuid,
      workspaceUuid: input.workspaceUuid,
      name: input.name,
      evalType: input.evalType,
      startedByUserId: input.startedBy.userId,
      startedByEmail: input.startedBy.email,
      startedByApiKeyId: input.startedBy.apiKeyId,
      reservedMicros: input.reservedMicros ?? null,
    })
    .returning();
  if (!row) throw new Error("unreachable: insert returned no row");
  return row;
}
