// @ant-design/plots' Column chart without the package's index: its React component looks the
// plot class up by name in a table of every plot type, which keeps all of them (and their
// libraries) in the bundle. The same hook, props step and plot class, imported on their own, keep
// only the column plot.
import type { ColumnConfig } from "@ant-design/plots/es/components/column";
import { Column } from "@ant-design/plots/es/core/plots/column";
import useChart from "@ant-design/plots/es/hooks/useChart";
import scale from "@ant-design/plots/es/util/scale";

export type { ColumnConfig };

export function ColumnChart(props: ColumnConfig) {
  // As the package's component: a y domain of [0, 1] when every value is 0.
  const { container } = useChart(Column as never, scale(props as never) as ColumnConfig);
  return <div ref={container} style={{ height: "inherit", flex: 1 }} />;
}
