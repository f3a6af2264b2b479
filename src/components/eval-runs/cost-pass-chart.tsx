// The Compare page's chart, in its own chunk (@ant-design/plots is the console's largest part):
// cost against pass rate for the runs of one eval in the billing period, a point per run; a click
// on a point opens its run.
import { Scatter } from "@ant-design/plots";

export type CostPassPoint = { run: string; passRate: number; cost: number; compared: boolean };

type Props = { points: readonly CostPassPoint[]; onOpen: (run: string) => void };

export default function CostPassChart({ points, onOpen }: Props) {
  return (
    <Scatter
      data={[...points]}
      xField="passRate"
      yField="cost"
      colorField="compared"
      shapeField="point"
      height={280}
      autoFit
      theme="classicDark"
      axis={{
        x: { title: "Pass Rate (%)", labelFormatter: (v: number) => `${v}%` },
        y: { title: "Cost (USD)", labelFormatter: (v: number) => `$${v}` },
      }}
      scale={{ color: { domain: [true, false], range: ["#1677ff", "#8c8c8c"] } }}
      legend={false}
      tooltip={{
        title: "run",
        items: [
          { channel: "x", name: "Pass Rate", valueFormatter: (v: number) => `${v}%` },
          { channel: "y", name: "Cost", valueFormatter: (v: number) => `$${v}` },
        ],
      }}
      onEvent={(_chart, event) => {
        // G2 hands a clicked point's datum as event.data.data.
        if (event?.type === "element:click" && event.data?.data?.run) onOpen(String(event.data.data.run));
      }}
    />
  );
}
