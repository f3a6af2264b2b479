// Cost/Usage Over Time: the toggles and the data live here; the drawing (@ant-design/plots, about
// 450 KB gzip) is a separate chunk loaded only when the chart is shown. Hidden below 768 px.
import { Alert, Card, Empty, Flex, Segmented, Skeleton } from "antd";
import { lazy, Suspense, useMemo, useState } from "react";
import { useIsMobile } from "../../hooks/use-is-mobile";
import { type ChartMetric, chartData } from "../../lib/billing/chart";
import type { BillingFilters } from "../../lib/billing/filters";
import type { Grouping } from "../../lib/billing/types";
import { useUsageSeries } from "./use-billing-data";

const StackedBars = lazy(() => import("./stacked-bars"));

const METRICS: { label: string; value: ChartMetric }[] = [
  { label: "Cost", value: "cost" },
  { label: "Usage", value: "usage" },
];
const GROUPINGS: { label: string; value: Grouping }[] = [
  { label: "Daily", value: "daily" },
  { label: "Weekly", value: "weekly" },
  { label: "Monthly", value: "monthly" },
];

const placeholder = <Skeleton.Node active style={{ width: "100%", height: 300 }} />;

export function UsageChart({
  cycleUuid,
  filters,
}: {
  cycleUuid: string | undefined;
  filters: BillingFilters;
}) {
  const mobile = useIsMobile();
  const [metric, setMetric] = useState<ChartMetric>("cost");
  const [grouping, setGrouping] = useState<Grouping>("daily");
  const { series, query } = useUsageSeries(cycleUuid, filters, grouping, !mobile);
  const data = useMemo(() => chartData(series?.buckets ?? [], grouping, metric), [series, grouping, metric]);
  if (mobile) return null;
  const title = metric === "cost" ? "Cost Over Time" : "Usage Over Time";
  return (
    <Card
      title={title}
      style={{ marginBottom: 16 }}
      data-testid="usage-chart"
      extra={
        <Flex gap={12} wrap>
          <Segmented<ChartMetric>
            aria-label="Chart metric"
            options={METRICS}
            value={metric}
            onChange={setMetric}
          />
          <Segmented<Grouping>
            aria-label="Chart grouping"
            options={GROUPINGS}
            value={grouping}
            onChange={setGrouping}
          />
        </Flex>
      }
    >
      {query.isError ? (
        <Alert
          type="error"
          showIcon
          message="The chart could not be loaded."
          description={query.error?.message}
        />
      ) : !series ? (
        placeholder
      ) : data.rows.length === 0 ? (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description="No usage data available"
          style={{ height: 300 }}
        />
      ) : (
        <Suspense fallback={placeholder}>
          <StackedBars data={data} metric={metric} />
        </Suspense>
      )}
    </Card>
  );
}
