// What the Eval Runs list adds for what each run bought: the "Pass Rate" and "Cost per Passed
// Case" columns, sorted by the server like the others, and the choice of 2 to 10 runs to Compare.
import { getDefaultSortOrder } from "@refinedev/antd";
import { type CrudSort, useGo } from "@refinedev/core";
import { Button, type TableProps, Tooltip } from "antd";
import { useState } from "react";
import { MAX_COMPARED_RUNS, MIN_COMPARED_RUNS } from "../../../contract/eval-run-figures";
import type { EvalRunList } from "../../../contract/eval-runs";
import { comparePath, passRatePercent } from "../../lib/eval-run-compare";
import { exactMoney } from "../../lib/eval-runs";
import { evalRunComparisons } from "../../resources/eval-run-comparisons";

type Row = EvalRunList["eval_runs"][number];

/** The two columns, server-sorted (runs without the figure last, either way). */
export function outcomeColumns(sorters: CrudSort[]): NonNullable<TableProps<Row>["columns"]> {
  return [
    {
      title: "Pass Rate",
      dataIndex: "pass_rate",
      key: "pass_rate",
      width: 110,
      align: "right",
      sorter: true,
      defaultSortOrder: getDefaultSortOrder("pass_rate", sorters),
      render: (rate: string | null) => <span title={rate ?? undefined}>{passRatePercent(rate)}</span>,
    },
    {
      title: "Cost per Passed Case",
      dataIndex: "cost_per_passed_case",
      key: "cost_per_passed_case",
      width: 170,
      align: "right",
      sorter: true,
      defaultSortOrder: getDefaultSortOrder("cost_per_passed_case", sorters),
      render: (v: string | null) => (v === null ? "-" : exactMoney(v)),
    },
  ];
}

/** The rows chosen to compare (in the order chosen) and the "Compare" button that opens them. */
export function useCompareSelection(cycle: string | null | undefined) {
  const go = useGo();
  const [chosen, setChosen] = useState<string[]>([]);
  const rowSelection: TableProps<Row>["rowSelection"] = {
    selectedRowKeys: chosen,
    // Kept across pages: a run chosen on page 1 stays chosen while the next is picked on page 2.
    preserveSelectedRowKeys: true,
    onChange: (keys) => {
      const now = keys.map(String);
      setChosen((before) => [
        ...before.filter((k) => now.includes(k)),
        ...now.filter((k) => !before.includes(k)),
      ]);
    },
    getCheckboxProps: (r) => ({
      disabled: chosen.length >= MAX_COMPARED_RUNS && !chosen.includes(r.eval_run_uuid),
      "aria-label": `Choose ${r.eval_run_uuid} to compare`,
    }),
    hideSelectAll: true,
  };
  const ready = chosen.length >= MIN_COMPARED_RUNS && chosen.length <= MAX_COMPARED_RUNS;
  const compare = (
    <Tooltip
      title={ready ? undefined : `Choose ${MIN_COMPARED_RUNS} to ${MAX_COMPARED_RUNS} runs to compare`}
    >
      <Button
        type="primary"
        disabled={!ready}
        data-testid="eval-runs-compare"
        onClick={() => go({ to: comparePath(evalRunComparisons.list as string, chosen, cycle) })}
      >
        Compare{chosen.length ? ` (${chosen.length})` : ""}
      </Button>
    </Tooltip>
  );
  return { rowSelection, compare };
}
