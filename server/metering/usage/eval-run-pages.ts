// The Eval Runs list and a run's page with what each run bought: its outcomes, pass rate, cost
// per passed case and cost by role, beside the cycle's cost they already show. The figures are
// read for the page's runs only (at most a page of them, through the run index); sorting by pass
// rate or cost per passed case reads the organization's reported outcomes once, beside the kept
// runs of the cycle.
import type { OutcomeSortField } from "../../../contract/eval-run-figures";
import {
  costPerPassedCaseMicros,
  type OutcomeFigures,
  type Outcomes,
  outcomeFigures,
  PASS_RATE_DECIMALS,
} from "../../../contract/eval-run-outcomes";
import type { EvalRun, EvalRunOperation, EvalRunSortField } from "../../../contract/eval-runs";
import { parseUsd } from "../../../contract/money";
import type { Db } from "../../platform/database";
import type { Cycle } from "../billing/cycles";
import { isScoringOperation, outcomesOf, scoringInCycle } from "./eval-run-outcomes";
import { type CycleRun, type EvalRunQuery, pageOfRuns } from "./eval-runs";

export type RunPageQuery = Omit<EvalRunQuery, "sort"> & { sort: EvalRunSortField | OutcomeSortField };

/** A run's sort key by an outcome figure: null (no figure) sorts after every figure, both ways. */
function outcomeKey(sort: OutcomeSortField, cost: bigint, o: Outcomes | undefined): bigint | null {
  if (!o) return null;
  if (sort === "cost_per_passed_case") return costPerPassedCaseMicros(cost, o);
  const all = BigInt(o.passed + o.failed + o.errored);
  // Compared exactly: passed/all scaled past the shown decimals, so equal shown rates still order.
  return all === 0n ? null : (BigInt(o.passed) * 10n ** BigInt(PASS_RATE_DECIMALS + 12)) / all;
}

function sortByOutcome(
  runs: EvalRun[],
  sort: OutcomeSortField,
  descending: boolean,
  outcomes: Map<string, Outcomes>,
) {
  const keyed = runs.map((r) => ({
    r,
    k: outcomeKey(sort, parseUsd(r.cost), outcomes.get(r.eval_run_uuid)),
  }));
  const dir = descending ? -1 : 1;
  keyed.sort((a, b) => {
    if (a.k === null || b.k === null) return a.k === b.k ? 0 : a.k === null ? 1 : -1;
    if (a.k !== b.k) return dir * (a.k < b.k ? -1 : 1);
    return dir * (a.r.eval_run_uuid < b.r.eval_run_uuid ? -1 : a.r.eval_run_uuid > b.r.eval_run_uuid ? 1 : 0);
  });
  return keyed.map((x) => x.r);
}

/** One page of the cycle's runs, each with its figures (sorting as pageOfRuns, or by a figure). */
export async function pageWithFigures(
  db: Db,
  cycle: Cycle,
  all: readonly CycleRun[],
  names: ReadonlyMap<string, string>,
  q: RunPageQuery,
): Promise<{ runs: (EvalRun & OutcomeFigures)[]; total: number }> {
  const org = cycle.organizationUuid;
  let page: EvalRun[];
  let total: number;
  if (q.sort === "pass_rate" || q.sort === "cost_per_passed_case") {
    // Filtered as pageOfRuns filters (one page of everything), then sorted by the figure.
    const kept = pageOfRuns(all, names, { ...q, sort: "started_at", page: 1, pageSize: all.length || 1 });
    const sorted = sortByOutcome(kept.runs, q.sort, q.descending, await outcomesOf(db, org));
    page = sorted.slice((q.page - 1) * q.pageSize, q.page * q.pageSize);
    total = kept.total;
  } else {
    ({ runs: page, total } = pageOfRuns(all, names, { ...q, sort: q.sort }));
  }
  const ids = page.map((r) => r.eval_run_uuid);
  const [outcomes, scoring] = await Promise.all([outcomesOf(db, org, ids), scoringInCycle(db, cycle, ids)]);
  const runs = page.map((r) => ({
    ...r,
    ...outcomeFigures(
      parseUsd(r.cost),
      scoring.get(r.eval_run_uuid) ?? 0n,
      outcomes.get(r.eval_run_uuid) ?? null,
    ),
  }));
  return { runs, total };
}

/** A run's figures on its page, from the cycle's cost and operations it already shows. */
export async function detailFigures(
  db: Db,
  org: string,
  detail: { eval_run_uuid: string; cost: string; operations: readonly EvalRunOperation[] },
): Promise<OutcomeFigures> {
  const outcomes = await outcomesOf(db, org, [detail.eval_run_uuid]);
  const scoring = detail.operations
    .filter((o) => isScoringOperation(o.operation))
    .reduce((sum, o) => sum + parseUsd(o.cost), 0n);
  return outcomeFigures(parseUsd(detail.cost), scoring, outcomes.get(detail.eval_run_uuid) ?? null);
}
