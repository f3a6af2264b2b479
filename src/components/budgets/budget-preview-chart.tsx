// The preview's chart: the billing cycle's spend day by day (it restarts with each cycle) against
// the thresholds' lines, with the days the hard limit would have blocked shaded. A small SVG, not
// the dashboard's chart library: the dialog stays light and the drawing is a few lines.
import { theme } from "antd";
import type { BudgetSimulation } from "../../../contract/budget-simulation";
import { alertsSentence, previewChart, shortDay } from "./budget-preview-text";

const W = 472;
const H = 120;
const PAD = { left: 4, right: 34, top: 6, bottom: 18 };

export function BudgetPreviewChart({ sim }: { sim: BudgetSimulation }) {
  const { token } = theme.useToken();
  const chart = previewChart(sim);
  const w = W - PAD.left - PAD.right;
  const h = H - PAD.top - PAD.bottom;
  const px = (x: number) => PAD.left + x * w;
  const py = (y: number) => PAD.top + (1 - y) * h;
  const path = chart.points
    .map((p, i) => `${i ? "L" : "M"}${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`)
    .join("");
  const first = sim.days[0]?.day;
  const last = sim.days.at(-1)?.day;
  return (
    <svg
      role="img"
      aria-label={`Spend in each billing cycle over the last ${sim.days.length} days against the thresholds. ${alertsSentence(sim)}`}
      viewBox={`0 0 ${W} ${H}`}
      width="100%"
      style={{ display: "block" }}
      data-testid="budget-preview-chart"
    >
      {chart.blocked.map((b) => (
        <rect
          key={b.from}
          x={px(b.from)}
          y={PAD.top}
          width={Math.max(1, (b.to - b.from) * w)}
          height={h}
          fill={token.colorErrorBg}
          data-testid="budget-preview-blocked"
        />
      ))}
      {chart.lines.map((l) => (
        <g key={l.label}>
          <line
            x1={PAD.left}
            x2={PAD.left + w}
            y1={py(l.y)}
            y2={py(l.y)}
            stroke={token.colorWarning}
            strokeDasharray="4 3"
          />
          <text x={PAD.left + w + 4} y={py(l.y) + 4} fontSize={11} fill={token.colorTextSecondary}>
            {l.label}
          </text>
        </g>
      ))}
      <path d={path} fill="none" stroke={token.colorPrimary} strokeWidth={2} />
      <line x1={PAD.left} x2={PAD.left + w} y1={PAD.top + h} y2={PAD.top + h} stroke={token.colorBorder} />
      {first && last ? (
        <>
          <text x={PAD.left} y={H - 4} fontSize={11} fill={token.colorTextSecondary}>
            {shortDay(first)}
          </text>
          <text x={PAD.left + w} y={H - 4} fontSize={11} textAnchor="end" fill={token.colorTextSecondary}>
            {shortDay(last)}
          </text>
        </>
      ) : null}
    </svg>
  );
}
