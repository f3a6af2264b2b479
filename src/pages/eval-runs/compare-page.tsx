// "/eval-runs/compare?eval_run_uuid=…&eval_run_uuid=…": 2 to 10 runs chosen on the Eval Runs list,
// side by side (GET /v1/eval-runs/compare), with their differences from the first; a chart of cost
// against pass rate for the runs of the same eval in the billing period, each point opening its
// run; and the comparison as a CSV file.
import { DownloadOutlined } from "@ant-design/icons";
import { type HttpError, useGo, useLink, useList } from "@refinedev/core";
import { Button, Card, Flex, Space, Spin, Typography } from "antd";
import { lazy, Suspense, useMemo } from "react";
import { useSearchParams } from "react-router";
import type { ComparedRun } from "../../../contract/eval-run-outcomes";
import type { EvalRunList } from "../../../contract/eval-runs";
import { toMicros } from "../../../contract/money";
import { CompareTable } from "../../components/eval-runs/compare-table";
import type { CostPassPoint } from "../../components/eval-runs/cost-pass-chart";
import { PageList } from "../../components/layout/page-list";
import { comparisonCsv, passRatePercent } from "../../lib/eval-run-compare";
import { evalRunPath } from "../../lib/eval-runs";
import { saveDownload } from "../../lib/save-download";
import { evalRunComparisons as resource } from "../../resources/eval-run-comparisons";
import { evalRuns } from "../../resources/eval-runs";

const CostPassChart = lazy(() => import("../../components/eval-runs/cost-pass-chart"));

type Row = EvalRunList["eval_runs"][number];

/** The runs of the baseline's eval in the period that have a pass rate, as the chart's points. */
function useEvalPoints(runs: readonly ComparedRun[], cycle: string | null) {
  const name = runs[0]?.eval_name ?? null;
  const { result, query } = useList<Row, HttpError>({
    resource: evalRuns.name,
    pagination: { currentPage: 1, pageSize: 100, mode: "server" },
    sorters: [{ field: "started_at", order: "desc" }],
    filters: [
      { field: "search", operator: "contains", value: name ?? "" },
      ...(cycle ? [{ field: "billing_cycle_uuid", operator: "eq" as const, value: cycle }] : []),
    ],
    queryOptions: { enabled: name !== null },
    errorNotification: false,
  });
  const compared = new Set(runs.map((r) => r.eval_run_uuid));
  const points: CostPassPoint[] = (result?.data ?? [])
    .filter((r) => r.eval_name === name && r.pass_rate !== null)
    .map((r) => ({
      run: r.eval_run_uuid,
      // Drawn values only: the figures themselves stay exact strings.
      passRate: Number(passRatePercent(r.pass_rate).replace("%", "")),
      cost: Number(toMicros(r.cost)) / 1_000_000,
      compared: compared.has(r.eval_run_uuid),
    }));
  return { name, points, query };
}

function EvalChart({ runs, cycle }: { runs: readonly ComparedRun[]; cycle: string | null }) {
  const go = useGo();
  const Link = useLink();
  const { name, points, query } = useEvalPoints(runs, cycle);
  const open = (run: string) => go({ to: evalRunPath(run, cycle) });
  let body = null;
  if (query.isError)
    body = <Typography.Text type="danger">The eval's runs could not be loaded.</Typography.Text>;
  else if (query.isLoading) body = <Spin />;
  else if (points.length === 0)
    body = (
      <Typography.Text type="secondary">
        No run of this eval has outcomes in this billing period.
      </Typography.Text>
    );
  else
    body = (
      <>
        <Suspense fallback={<Spin />}>
          <CostPassChart points={points} onOpen={open} />
        </Suspense>
        <Space wrap size={[12, 4]} data-testid="compare-chart-runs">
          {points.map((p) => (
            <Link key={p.run} to={evalRunPath(p.run, cycle)}>
              {p.run} ({p.passRate}%)
            </Link>
          ))}
        </Space>
      </>
    );
  return (
    <Card title={`Cost against Pass Rate${name ? `: ${name}` : ""}`} data-testid="compare-chart">
      <Flex vertical gap={8}>
        {body}
      </Flex>
    </Card>
  );
}

export function EvalRunComparePage() {
  const [params] = useSearchParams();
  const ids = params.getAll("eval_run_uuid");
  const cycle = params.get("billing_cycle_uuid");
  const { result, query } = useList<ComparedRun, HttpError>({
    resource: resource.name,
    filters: [{ field: "eval_run_uuid", operator: "in", value: ids }],
    pagination: { mode: "off" },
    queryOptions: { enabled: ids.length > 0 },
    errorNotification: false,
  });
  const runs = useMemo(() => (ids.length > 0 ? (result?.data ?? []) : []), [ids.length, result?.data]);
  const tableQuery = ids.length > 0 ? query : { ...query, isLoading: false, isError: false };
  const download = () => {
    const day = new Date().toISOString().slice(0, 10);
    saveDownload(new Blob([comparisonCsv(runs)], { type: "text/csv" }), `eval_run_comparison_${day}.csv`);
  };
  return (
    <PageList
      resource={resource.name}
      title="Compare"
      headerButtons={
        <Button icon={<DownloadOutlined />} disabled={runs.length === 0} onClick={download}>
          Download CSV
        </Button>
      }
    >
      <Flex vertical gap={16}>
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          The runs side by side over all their events: each figure of a later run with its difference from the
          first (the baseline).
        </Typography.Paragraph>
        <CompareTable runs={runs} query={tableQuery} cycle={cycle} />
        {runs.length > 0 ? <EvalChart runs={runs} cycle={cycle} /> : null}
      </Flex>
    </PageList>
  );
}
