/**
 * POST /v1/budgets/simulate: a proposed budget replayed over the organization's real usage. Reads
 * the daily spend of the budget's scope from usage_daily_coarse (the rollup live budgets measure,
 * one grouped read however many events), the stored billing cycles, and for each period the hard
 * limit would have blocked, the eval runs started in it; budget-replay.ts does the rest.
 */
import { sql } from "drizzle-orm";
import type { BudgetSimulation, BudgetSimulationRequest } from "../../../contract/budget-simulation";
import { DEFAULT_SIMULATION_DAYS } from "../../../contract/budget-simulation";
import { DEFAULT_BUDGET_THRESHOLDS } from "../../../contract/budgets";
import { formatUsdExact, parseUsd } from "../../../contract/money";
import { DAY_MS, HOUR_MS, utcDay } from "../../../contract/utc-calendar";
import type { Db } from "../../platform/database";
import { listCycles } from "../billing/cycles";
import { liveWorkspaceName, scopedWorkspace } from "./admin";
import { type ReplayBlock, replayBudget, scanStart } from "./replay";

type Rows<T> = { rows: T[] };

export async function simulateBudget(
  db: Db,
  organizationUuid: string,
  input: BudgetSimulationRequest,
  now = new Date(),
): Promise<BudgetSimulation> {
  const workspaceUuid = scopedWorkspace(input);
  // A deleted workspace's history is still real usage, but a budget cannot be set on it: the same
  // 404 as POST /v1/budgets, so the preview never promises what the create refuses.
  if (workspaceUuid) await liveWorkspaceName(db, organizationUuid, workspaceUuid);

  const days = input.days ?? DEFAULT_SIMULATION_DAYS;
  const to = utcDay(now);
  const from = utcDay(new Date(now.getTime() - (days - 1) * DAY_MS));
  const cycles = (await listCycles(db, organizationUuid)).map((c) => ({
    start: c.startDate,
    end: c.endDate,
  }));
  const first = scanStart(cycles, from);
  const spendRows = (await db.execute(sql`
    select day::text as day, sum(cost_micros_sum)::text as cost
      from usage_daily_coarse
     where organization_uuid = ${organizationUuid} and day >= ${first}::date and day <= ${to}::date
       ${workspaceUuid ? sql`and workspace_uuid = ${workspaceUuid}::uuid` : sql``}
     group by day`)) as unknown as Rows<{ day: string; cost: string }>;
  const daily = new Map(spendRows.rows.map((r) => [r.day, BigInt(r.cost)]));

  const amount = parseUsd(input.amount);
  const thresholds = [...(input.thresholds ?? DEFAULT_BUDGET_THRESHOLDS)].sort((a, b) => a - b);
  const hardLimit = input.hard_limit ?? false;
  const replay = replayBudget({ from, to, cycles, daily, amount, thresholds, hardLimit, now });
  const refused = await Promise.all(
    replay.blocks.map((b) => runsStarted(db, organizationUuid, workspaceUuid, b)),
  );

  const blocks = replay.blocks.map((b, i) => ({
    cycle_start: b.cycleStart,
    reached_on: b.reachedOn,
    from: b.from.toISOString(),
    until: b.until.toISOString(),
    hours: Math.round(((b.until.getTime() - b.from.getTime()) / HOUR_MS) * 100) / 100,
    ongoing: b.ongoing,
    runs_refused: refused[i] ?? 0,
    spend_avoided: formatUsdExact(b.spendAvoided),
  }));
  return {
    scope: input.scope,
    workspace_uuid: workspaceUuid,
    amount: formatUsdExact(amount),
    thresholds,
    hard_limit: hardLimit,
    from,
    to,
    days: replay.days.map((d) => ({
      day: d.day,
      spend: formatUsdExact(d.spend),
      cycle_spend: formatUsdExact(d.cycleSpend),
      blocked: d.blocked,
    })),
    alerts: replay.alerts.map((a) => ({
      threshold: a.threshold,
      cycle_start: a.cycleStart,
      day: a.day,
      spent: formatUsdExact(a.spent),
    })),
    blocks,
    runs_refused: blocks.reduce((n, b) => n + b.runs_refused, 0),
    spend_avoided: formatUsdExact(replay.blocks.reduce((n, b) => n + b.spendAvoided, 0n)),
  };
}

/**
 * The eval runs started in the scope while a block lasted: each would have been refused (402) by
 * POST /v1/eval-runs. An organization's budget blocks every workspace, so it counts them all.
 */
async function runsStarted(db: Db, organizationUuid: string, workspaceUuid: string | null, b: ReplayBlock) {
  const result = (await db.execute(sql`
    select count(*)::int as n from eval_runs
     where organization_uuid = ${organizationUuid}
       and started_at >= ${b.from.toISOString()}::timestamptz and started_at < ${b.until.toISOString()}::timestamptz
       ${workspaceUuid ? sql`and workspace_uuid = ${workspaceUuid}::uuid` : sql``}`)) as unknown as Rows<{
    n: number;
  }>;
  return Number(result.rows[0]?.n ?? 0);
}
