// The chart drawing, in its own chunk: stacked columns per eval type, rotated date labels, a
// legend, a tooltip per bucket, height 300 with the spec's margins, redrawn 100 ms after a resize.
import { Column } from "@ant-design/plots";
import { useEffect, useRef, useState } from "react";
import {
  axisLabel,
  CHART_HEIGHT,
  CHART_MARGIN,
  CHART_RESIZE_DELAY_MS,
  type ChartData,
  type ChartMetric,
  type ChartRow,
  tooltipValue,
} from "../../lib/billing/chart";
import { ADJUSTMENT_COLOR } from "../../lib/billing/colors";
import { debounce } from "../../lib/debounce";

/** The container's width, updated 100 ms after the last resize. */
function useDebouncedWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.clientWidth);
    const measure = debounce(() => setWidth(element.clientWidth), CHART_RESIZE_DELAY_MS);
    const observer = new ResizeObserver(() => measure());
    observer.observe(element);
    return () => {
      measure.cancel();
      observer.disconnect();
    };
  }, []);
  return { ref, width };
}

export default function StackedBars({ data, metric }: { data: ChartData; metric: ChartMetric }) {
  const { ref, width } = useDebouncedWidth();
  return (
    <div
      ref={ref}
      style={{ width: "100%", height: CHART_HEIGHT }}
      data-testid="usage-chart-canvas"
      data-metric={metric}
    >
      {width > 0 ? (
        <Column
          key={`${metric}-${width}`}
          data={data.rows}
          xField="bucket"
          yField="value"
          colorField="evalType"
          stack
          width={width}
          height={CHART_HEIGHT}
          autoFit={false}
          theme="classicDark"
          // The spec's margins hold the axes (the bottom one the rotated date labels), which G2
          // calls padding; the legend adds its own row above the top margin.
          marginTop={CHART_MARGIN.top}
          paddingRight={CHART_MARGIN.right}
          paddingBottom={CHART_MARGIN.bottom}
          paddingLeft={CHART_MARGIN.left}
          // Credits and other price adjustments: translucent, with a dashed outline.
          style={{
            maxWidth: 48,
            radiusTopLeft: 2,
            radiusTopRight: 2,
            fillOpacity: (d: ChartRow) => (d.adjustment ? 0.35 : 1),
            stroke: (d: ChartRow) => (d.adjustment ? ADJUSTMENT_COLOR : undefined),
            lineWidth: (d: ChartRow) => (d.adjustment ? 1 : 0),
            lineDash: (d: ChartRow) => (d.adjustment ? [3, 2] : undefined),
          }}
          scale={{
            x: { domain: data.buckets, paddingInner: 0.25 },
            color: { domain: data.evalTypes, range: data.colors },
            y: { nice: true },
          }}
          axis={{
            x: { title: false, labelTransform: "rotate(-45)", labelAutoRotate: false, labelAutoHide: false },
            y: {
              title: false,
              labelFormatter: (v: number) => axisLabel(v, metric),
              tickFilter: (v: number) => metric === "cost" || Number.isInteger(v),
              grid: true,
              gridStrokeOpacity: 0.15,
            },
          }}
          // The legend is HTML next to the canvas (readable by assistive technology and tests).
          legend={false}
          interaction={{ elementHighlightByX: true }}
          tooltip={{
            title: (d: ChartRow) => d.title,
            items: [(d: ChartRow) => ({ name: d.evalType, value: tooltipValue(d.value, metric) })],
          }}
        />
      ) : null}
    </div>
  );
}
