// Cost/Usage Over Time: the toggles and the data live here; the drawing (@ant-design/plots, about
// 350 kB gzip, 240 kB brotli) is a separate chunk loaded only when the chart is shown. Hidden
// below 768 px.
import { Alert, Card, Empty, Flex, Segmented, Skeleton, Typography } from "antd";
import { Suspense, useMemo } from "react";
import type { Grouping } from "../../../contract/usage-schemas";
import { ADJUSTMENTS_LABEL, CHART_HEIGHT, type ChartMetric, chartData } from "../../lib/billing/chart";
import { stackedBars } from "./stacked-bars-chunk";

const StackedBars = stackedBars.Component;

import type { useUsageSeries } from "./use-billing-data";
import type { BillingState } from "./use-billing-state";

const METRICS: { label: string; value: ChartMetric }[] = [
  { label: "Cost", value: "cost" },
  { label: "Usage", value: "usage" },
];
const GROUPINGS: { label: string; value: Grouping }[] = [
  { label: "Daily", value: "daily" },
  { label: "Weekly", value: "weekly" },
  { label: "Monthly", value: "monthly" },
];

/** The legend's row above the drawing (one line of text and its margin). */
const LEGEND_ROOM = 30;
// Before the series: the room of the legend and the drawing, so nothing below moves when they come.
const waiting = <Skeleton.Node active style={{ width: "100%", height: CHART_HEIGHT + LEGEND_ROOM }} />;
// The legend is drawn: the drawing's room while its chunk arrives.
const drawing = <Skeleton.Node active style={{ width: "100%", height: CHART_HEIGHT }} />;

/** The chart of the page's series (read by the page, so Refresh refetches it with the rest). */
export function UsageChart({
  series,
  query,
  state,
}: ReturnType<typeof useUsageSeries> & { state: BillingState }) {
  const { metric, grouping } = state.view;
  const data = useMemo(() => chartData(series?.buckets ?? [], grouping, metric), [series, grouping, metric]);
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
            onChange={state.setMetric}
          />
          <Segmented<Grouping>
            aria-label="Chart grouping"
            options={GROUPINGS}
            value={grouping}
            onChange={state.setGrouping}
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
        waiting
      ) : data.rows.length === 0 ? (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description="No usage data available"
          style={{ margin: "24px 0" }}
        />
      ) : (
        <>
          <Flex
            wrap
            gap={16}
            role="list"
            aria-label="Legend"
            data-testid="chart-legend"
            style={{ marginBottom: 8 }}
          >
            {data.evalTypes.map((type, i) => (
              <Flex key={type} role="listitem" align="center" gap={6}>
                <span
                  aria-hidden
                  data-testid="legend-swatch"
                  data-color={data.colors[i]}
                  style={
                    type === ADJUSTMENTS_LABEL
                      ? {
                          width: 10,
                          height: 10,
                          borderRadius: 2,
                          border: `1px dashed ${data.colors[i]}`,
                          background: `${data.colors[i]}59`,
                        }
                      : { width: 10, height: 10, borderRadius: 2, background: data.colors[i] }
                  }
                />
                <Typography.Text type="secondary">{type}</Typography.Text>
              </Flex>
            ))}
          </Flex>
          <Suspense fallback={drawing}>
            <StackedBars data={data} metric={metric} />
          </Suspense>
        </>
      )}
    </Card>
  );
}
