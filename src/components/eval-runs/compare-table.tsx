// The Compare page's table: the runs side by side, one column per run (the first the baseline),
// one row per figure, each later run's cell with its difference from the first.
import { useLink } from "@refinedev/core";
import { type TableProps, Typography } from "antd";
import type { ReactNode } from "react";
import type { ComparedRun } from "../../../contract/eval-run-outcomes";
import { formatMoney } from "../../../contract/money";
import { formatUtcDateTime } from "../../lib/billing/dates";
import { operationLabel } from "../../lib/billing/labels";
import { passRateDifference, passRatePercent, signedMoney } from "../../lib/eval-run-compare";
import { evalRunPath, exactMoney } from "../../lib/eval-runs";
import { type ListQuery, QueryTable } from "../feedback/query-table";

type Figure = {
  key: string;
  label: string;
  value: (r: ComparedRun) => ReactNode;
  difference?: (r: ComparedRun) => string;
};

const money = (v: string | null) => (v === null ? "-" : <span title={exactMoney(v)}>{formatMoney(v)}</span>);
const count = (n: number | undefined) => (n === undefined ? "-" : n.toLocaleString("en-US"));
const diffMoney = (v: string | null) => signedMoney(v === null ? "-" : formatMoney(v), v);

/** The cost of one operation, or of one eval type, in a run (null where it has none). */
const operationCost = (r: ComparedRun, op: string) =>
  r.cost_by_operation.find((o) => o.operation === op)?.cost ?? null;
const typeCost = (r: ComparedRun, type: string | null) =>
  r.cost_by_eval_type.find((t) => t.eval_type === type)?.cost ?? null;

function figuresOf(runs: readonly ComparedRun[]): Figure[] {
  const operations = [...new Set(runs.flatMap((r) => r.cost_by_operation.map((o) => o.operation)))];
  const types = [...new Set(runs.flatMap((r) => r.cost_by_eval_type.map((t) => t.eval_type)))];
  return [
    {
      key: "cost",
      label: "Cost",
      value: (r) => money(r.cost),
      difference: (r) => diffMoney(r.difference.cost),
    },
    {
      key: "events",
      label: "Events",
      value: (r) => count(r.events),
      difference: (r) =>
        `${r.difference.events > 0 ? "+" : ""}${r.difference.events.toLocaleString("en-US")}`,
    },
    { key: "passed", label: "Passed", value: (r) => count(r.outcomes?.passed) },
    { key: "failed", label: "Failed", value: (r) => count(r.outcomes?.failed) },
    { key: "errored", label: "Errored", value: (r) => count(r.outcomes?.errored) },
    {
      key: "pass_rate",
      label: "Pass Rate",
      value: (r) => passRatePercent(r.pass_rate),
      difference: (r) => passRateDifference(r.difference.pass_rate),
    },
    {
      key: "cost_per_passed_case",
      label: "Cost per Passed Case",
      value: (r) => (r.cost_per_passed_case === null ? "-" : exactMoney(r.cost_per_passed_case)),
      difference: (r) => diffMoney(r.difference.cost_per_passed_case),
    },
    { key: "generation", label: "Generation", value: (r) => money(r.cost_by_role.generation) },
    { key: "scoring", label: "Judge (Scoring)", value: (r) => money(r.cost_by_role.scoring) },
    ...operations.map((op) => ({
      key: `op:${op}`,
      label: `Operation: ${operationLabel(op)}`,
      value: (r: ComparedRun) => money(operationCost(r, op)),
    })),
    ...types.map((type) => ({
      key: `type:${type}`,
      label: `Eval Type: ${type ?? "None"}`,
      value: (r: ComparedRun) => money(typeCost(r, type)),
    })),
    { key: "started", label: "Started", value: (r) => formatUtcDateTime(r.started_at) },
    {
      key: "finished",
      label: "Finished",
      value: (r) => (r.finished_at ? formatUtcDateTime(r.finished_at) : "-"),
    },
  ];
}

type Props = { runs: readonly ComparedRun[]; query: ListQuery; cycle: string | null };

export function CompareTable({ runs, query, cycle }: Props) {
  const Link = useLink();
  const figures = figuresOf(runs);
  const columns: TableProps<Figure>["columns"] = [
    { title: "Figure", dataIndex: "label", key: "label", fixed: "left", width: 200 },
    ...runs.map((run, i) => ({
      key: run.eval_run_uuid,
      title: (
        <Link to={evalRunPath(run.eval_run_uuid, cycle)} data-testid="compare-run-link">
          <Typography.Text code style={{ fontSize: 12 }}>
            {run.eval_run_uuid}
          </Typography.Text>
          {i === 0 ? " (baseline)" : ""}
        </Link>
      ),
      render: (_: unknown, f: Figure) => (
        <span data-testid={`compare-${f.key}`}>
          {f.value(run)}
          {i > 0 && f.difference ? (
            <Typography.Text type="secondary" style={{ marginLeft: 8 }}>
              ({f.difference(run)})
            </Typography.Text>
          ) : null}
        </span>
      ),
    })),
  ];
  return (
    <QueryTable<Figure>
      query={query}
      failed="The comparison could not be loaded."
      empty="Choose 2 to 10 runs on the Eval Runs list, then Compare"
      rowKey="key"
      size="middle"
      pagination={false}
      scroll={{ x: 200 + runs.length * 220 }}
      dataSource={runs.length ? figures : []}
      columns={columns}
    />
  );
}
