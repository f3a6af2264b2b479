// What a run bought, beside its reservation on the run's page: the outcomes its eval service
// reported, the pass rate, the cost per passed case, and the run's cost split between generation
// and the judge (scoring), which add up to its cost.
import { Card, Descriptions, Typography } from "antd";
import type { OutcomeFigures } from "../../../contract/eval-run-figures";
import { formatMoney } from "../../../contract/money";
import { passRatePercent } from "../../lib/eval-run-compare";
import { exactMoney } from "../../lib/eval-runs";

const count = (n: number | undefined) => (n === undefined ? "-" : n.toLocaleString("en-US"));

export function RunOutcomesCard({ figures: f }: { figures: OutcomeFigures }) {
  const o = f.outcomes;
  return (
    <Card title="Outcomes" data-testid="run-outcomes">
      {o ? null : (
        <Typography.Paragraph type="secondary">
          No outcomes reported yet: the eval service sends them while the run goes or when it finishes.
        </Typography.Paragraph>
      )}
      <Descriptions
        size="small"
        column={{ xs: 1, md: 2 }}
        items={[
          { key: "passed", label: "Passed", children: count(o?.passed) },
          { key: "failed", label: "Failed", children: count(o?.failed) },
          { key: "errored", label: "Errored", children: count(o?.errored) },
          {
            key: "pass_rate",
            label: "Pass Rate",
            children: <span data-testid="run-pass-rate">{passRatePercent(f.pass_rate)}</span>,
          },
          {
            key: "cost_per_passed_case",
            label: "Cost per Passed Case",
            children: (
              <span data-testid="run-cost-per-passed-case" title={f.cost_per_passed_case ?? undefined}>
                {f.cost_per_passed_case === null ? "-" : exactMoney(f.cost_per_passed_case)}
              </span>
            ),
          },
          {
            key: "generation",
            label: "Generation",
            children: (
              <span title={exactMoney(f.cost_by_role.generation)}>
                {formatMoney(f.cost_by_role.generation)}
              </span>
            ),
          },
          {
            key: "scoring",
            label: "Judge (Scoring)",
            children: (
              <span title={exactMoney(f.cost_by_role.scoring)}>{formatMoney(f.cost_by_role.scoring)}</span>
            ),
          },
        ]}
      />
    </Card>
  );
}
