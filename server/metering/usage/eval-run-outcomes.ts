// What a run bought: the outcomes an eval service reports for a run it started (stored on its
// eval_runs row when reported: a fact, never inferred from the usage), and the figures read with
// them: the run's cost split between the judge (SCORING_OPERATIONS) and generation, its cost per
// operation and eval type, over all its events (the comparison and the webhook) or a billing
// cycle's (the list and the run's page, beside the cycle's cost they show).
import { type SQL, sql } from "drizzle-orm";
import {
  costPerPassedCaseMicros,
  type EvalRunFigures,
  type Outcomes,
  outcomeFigures,
  passRate,
  SCORING_OPERATIONS,
} from "../../../contract/eval-run-outcomes";
import { formatUsdExact, parseUsd } from "../../../contract/money";
import type { UsageReportPage } from "../../../contract/usage-report";
import type { Db, Tx } from "../../platform/database";
import { type Cycle, cycleBounds } from "../billing/cycles";

type Rows<T> = { rows: T[] };
const rows = <T>(result: unknown) => (result as Rows<T>).rows;
const iso = (v: string | Date) => new Date(v).toISOString();
const list = (values: readonly string[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/** The SQL test of a judge's event (operation column of usage_events). */
export const isScoring = (operation: SQL) => sql`lower(${operation}) in (${list(SCORING_OPERATIONS)})`;
/** The same test in JavaScript, for operations already grouped. */
export const isScoringOperation = (operation: string) =>
  (SCORING_OPERATIONS as readonly string[]).includes(operation.toLowerCase());

type OutcomeRow = {
  run: string;
  passed: string | number | null;
  failed: string | number;
  errored: string | number;
};
const outcomeOf = (r: OutcomeRow): Outcomes | null =>
  r.passed === null
    ? null
    : { passed: Number(r.passed), failed: Number(r.failed), errored: Number(r.errored) };

/** The reported outcomes of the organization's runs (those named, or all that have some). */
export async function outcomesOf(db: Db | Tx, org: string, runs?: readonly string[]) {
  if (runs && runs.length === 0) return new Map<string, Outcomes>();
  const only = runs ? sql` and eval_run_uuid in (${list(runs)})` : sql``;
  const result = await db.execute(sql`
    select eval_run_uuid as run, outcomes_passed as passed, outcomes_failed as failed, outcomes_errored as errored
    from eval_runs where organization_uuid = ${org} and outcomes_passed is not null${only}`);
  const out = new Map<string, Outcomes>();
  for (const r of rows<OutcomeRow>(result)) {
    const o = outcomeOf(r);
    if (o) out.set(r.run, o);
  }
  return out;
}

/** The judge's cost (micros) of each named run within a billing cycle (runs without any: absent). */
export async function scoringInCycle(db: Db, cycle: Cycle, runs: readonly string[]) {
  const out = new Map<string, bigint>();
  if (runs.length === 0) return out;
  const { start, end } = cycleBounds(cycle);
  const before = end ? sql` and occurred_at < ${end.toISOString()}::timestamptz` : sql``;
  const result = await db.execute(sql`
    select eval_run_uuid as run, coalesce(sum(cost_micros), 0)::text as cost
    from usage_events
    where organization_uuid = ${cycle.organizationUuid} and eval_run_uuid in (${list(runs)})
      and occurred_at >= ${start.toISOString()}::timestamptz${before} and ${isScoring(sql`operation`)}
    group by eval_run_uuid`);
  for (const r of rows<{ run: string; cost: string }>(result)) out.set(r.run, BigInt(r.cost));
  return out;
}

/** The workspace of the organization's started run (null: no such started run). */
export async function startedRunWorkspace(db: Db, org: string, run: string): Promise<string | null> {
  const result = await db.execute(sql`
    select workspace_uuid::text as ws from eval_runs where organization_uuid = ${org} and eval_run_uuid = ${run}`);
  return rows<{ ws: string }>(result)[0]?.ws ?? null;
}

/** The started run of the organization, locked for the change (null: none such). */
export async function lockStartedRun(tx: Tx, org: string, run: string) {
  const result = await tx.execute(sql`
    select workspace_uuid::text as workspace_uuid, finished_at, outcomes_passed as passed,
      outcomes_failed as failed, outcomes_errored as errored, eval_run_uuid as run
    from eval_runs where organization_uuid = ${org} and eval_run_uuid = ${run} for update`);
  const r = rows<OutcomeRow & { workspace_uuid: string; finished_at: string | Date | null }>(result)[0];
  if (!r) return null;
  return {
    workspaceUuid: r.workspace_uuid,
    finishedAt: r.finished_at === null ? null : new Date(r.finished_at),
    outcomes: outcomeOf(r),
  };
}

/**
 * Writes a started run's outcomes (replacing the last ones) and, when finishing, its finish time
 * (the first finish's; a repeat keeps it). Answers the finish time.
 */
export async function writeRunOutcomes(
  tx: Tx,
  org: string,
  run: string,
  change: { outcomes: Outcomes | null; finish: boolean },
): Promise<Date | null> {
  const o = change.outcomes;
  const sets = [
    ...(change.finish ? [sql`finished_at = coalesce(finished_at, now())`] : []),
    ...(o
      ? [
          sql`outcomes_passed = ${o.passed}, outcomes_failed = ${o.failed}, outcomes_errored = ${o.errored}`,
          sql`outcomes_reported_at = now()`,
        ]
      : []),
  ];
  if (sets.length === 0) sets.push(sql`finished_at = finished_at`);
  const result = await tx.execute(sql`
    update eval_runs set ${sql.join(sets, sql`, `)}
    where organization_uuid = ${org} and eval_run_uuid = ${run}
    returning finished_at`);
  const at = rows<{ finished_at: string | Date | null }>(result)[0]?.finished_at ?? null;
  return at === null ? null : new Date(at);
}

type GroupRow = {
  run: string;
  operation: string;
  eval_type: string | null;
  events: string | number;
  cost: string;
  first_at: string | Date;
  name: string | null;
  ws: string | null;
};
type StartedRow = OutcomeRow & {
  name: string | null;
  eval_type: string | null;
  ws: string;
  started_at: string | Date;
  finished_at: string | Date | null;
};

type Sum = { events: number; cost: bigint };
const add = (m: Map<string | null, Sum>, key: string | null, events: number, cost: bigint) => {
  const s = m.get(key) ?? { events: 0, cost: 0n };
  m.set(key, { events: s.events + events, cost: s.cost + cost });
};
const highestFirst = <K extends string | null>(m: Map<K, Sum>) =>
  [...m.entries()]
    .sort(([ka, a], [kb, b]) =>
      a.cost === b.cost ? String(ka).localeCompare(String(kb)) : a.cost > b.cost ? -1 : 1,
    )
    .map(([key, s]) => ({ key, events: s.events, cost: formatUsdExact(s.cost) }));
const least = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a < b ? a : b);

/**
 * The whole figures of the organization's named runs, over all their events: a run the
 * organization neither started nor has events of is absent from the answer.
 */
export async function runFigures(db: Db | Tx, org: string, runs: readonly string[]) {
  const out = new Map<string, EvalRunFigures>();
  if (runs.length === 0) return out;
  const [grouped, started] = await Promise.all([
    db.execute(sql`
      select eval_run_uuid as run, operation, eval_type, count(*) as events, coalesce(sum(cost_micros), 0)::text as cost,
        min(occurred_at) as first_at, min(name) as name, min(workspace_uuid::text) as ws
      from usage_events where organization_uuid = ${org} and eval_run_uuid in (${list(runs)})
      group by eval_run_uuid, operation, eval_type`),
    db.execute(sql`
      select eval_run_uuid as run, name, eval_type, workspace_uuid::text as ws, started_at, finished_at,
        outcomes_passed as passed, outcomes_failed as failed, outcomes_errored as errored
      from eval_runs where organization_uuid = ${org} and eval_run_uuid in (${list(runs)})`),
  ]);
  const starts = new Map(rows<StartedRow>(started).map((r) => [r.run, r]));
  const groups = new Map<string, GroupRow[]>();
  for (const g of rows<GroupRow>(grouped)) groups.set(g.run, [...(groups.get(g.run) ?? []), g]);
  for (const run of runs) {
    const s = starts.get(run);
    const gs = groups.get(run) ?? [];
    if (!s && gs.length === 0) continue;
    const byOperation = new Map<string | null, Sum>();
    const byType = new Map<string | null, Sum>();
    let scoring = 0n;
    let first: string | null = s ? iso(s.started_at) : null;
    let name: string | null = null;
    let evalType: string | null = null;
    let ws: string | null = null;
    for (const g of gs) {
      const cost = BigInt(g.cost);
      add(byOperation, g.operation, Number(g.events), cost);
      add(byType, g.eval_type, Number(g.events), cost);
      if (isScoringOperation(g.operation)) scoring += cost;
      first = least(first, iso(g.first_at));
      name = least(name, g.name);
      evalType = least(evalType, g.eval_type);
      ws = least(ws, g.ws);
    }
    const total = [...byOperation.values()].reduce(
      (a, b) => ({ events: a.events + b.events, cost: a.cost + b.cost }),
      {
        events: 0,
        cost: 0n,
      },
    );
    out.set(run, {
      eval_run_uuid: run,
      eval_name: s?.name ?? name,
      eval_type: s?.eval_type ?? evalType,
      workspace_uuid: s?.ws ?? ws,
      started_at: first ?? new Date().toISOString(),
      finished_at: s?.finished_at ? iso(s.finished_at) : null,
      events: total.events,
      cost: formatUsdExact(total.cost),
      cost_by_operation: highestFirst(byOperation).map(({ key, ...v }) => ({ operation: key ?? "", ...v })),
      cost_by_eval_type: highestFirst(byType).map(({ key, ...v }) => ({ eval_type: key, ...v })),
      ...outcomeFigures(total.cost, scoring, s ? outcomeOf(s) : null),
    });
  }
  return out;
}

/**
 * A report page grouped by eval run, with each run's outcomes, pass rate and cost per passed case:
 * the row's cost (its bucket's, and its other groupings') ÷ the run's passed cases.
 */
export async function withRunOutcomes(db: Db, org: string, page: UsageReportPage): Promise<UsageReportPage> {
  const ids = [...new Set(page.data.map((r) => r.eval_run_uuid).filter((id): id is string => !!id))];
  const outcomes = await outcomesOf(db, org, ids);
  return {
    ...page,
    data: page.data.map((r) => {
      const o = (r.eval_run_uuid && outcomes.get(r.eval_run_uuid)) || null;
      const perPassed = costPerPassedCaseMicros(parseUsd(r.cost), o);
      return {
        ...r,
        outcomes: o,
        pass_rate: passRate(o),
        cost_per_passed_case: perPassed === null ? null : formatUsdExact(perPassed),
      };
    }),
  };
}
