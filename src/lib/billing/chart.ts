// The Cost/Usage Over Time chart's data: one row per bucket and eval type (labels merged, so
// accuracy and hallucination stack as one "Accuracy"), values as numbers for drawing only.

import { evalTypeLabel } from "../../../contract/eval-types";
import { formatMoney, microsToNumber, toMicros } from "../../../contract/money";
import type { Grouping, SeriesBucket } from "../../../contract/usage-schemas";
import { ADJUSTMENT_COLOR, evalTypeColor } from "./colors";
import { bucketLabel, bucketTitle } from "./dates";

export type ChartMetric = "cost" | "usage";

export type ChartRow = {
  /** Axis label of the bucket. */
  bucket: string;
  /** Tooltip title of the bucket. */
  title: string;
  evalType: string;
  value: number;
  /** Credits and other price adjustments of the bucket (cost only), drawn apart from usage. */
  adjustment?: true;
};

/** The chart's series for credits and other price adjustments. */
export const ADJUSTMENTS_LABEL = "Credits & adjustments";

export const CHART_HEIGHT = 300;
export const CHART_MARGIN = { top: 20, right: 30, bottom: 100, left: 60 } as const;
export const CHART_RESIZE_DELAY_MS = 100;

/** The legend's series (eval types, then credits) and their colours, in the same order. */
export type ChartData = { rows: ChartRow[]; buckets: string[]; evalTypes: string[]; colors: string[] };

const ZERO = { events: 0, count: 0, price: "0" };

/**
 * Rows of the stacked bars, every bucket's axis label (empty ones too) and the legend's order.
 * Eval types show their usage alone; with the cost metric, a bucket's credits and other price
 * adjustments are one more row (below zero for credits) instead of shrinking an eval type's bar.
 */
export function chartData(
  buckets: readonly SeriesBucket[],
  grouping: Grouping,
  metric: ChartMetric,
): ChartData {
  const totals = new Map<string, bigint>();
  const rows: ChartRow[] = [];
  const adjustmentRows: ChartRow[] = [];
  for (const bucket of buckets) {
    const merged = new Map<string, { micros: bigint; count: number }>();
    for (const t of bucket.eval_types) {
      const adj = t.adjustments ?? ZERO;
      if (t.events - adj.events <= 0) continue; // adjustments only: no usage of this type
      const label = evalTypeLabel(t.eval_type);
      const micros = toMicros(t.price) - toMicros(adj.price);
      const count = t.count - adj.count;
      const m = merged.get(label) ?? { micros: 0n, count: 0 };
      m.micros += micros;
      m.count += count;
      merged.set(label, m);
      totals.set(label, (totals.get(label) ?? 0n) + (metric === "cost" ? micros : BigInt(count)));
    }
    for (const [label, m] of merged) {
      rows.push({
        bucket: bucketLabel(bucket.date, grouping),
        title: bucketTitle(bucket.date, grouping),
        evalType: label,
        value: metric === "cost" ? microsToNumber(m.micros) : m.count,
      });
    }
    const adjusted = toMicros(bucket.adjustments?.price ?? "0");
    if (metric === "cost" && (bucket.adjustments?.events ?? 0) > 0 && adjusted !== 0n) {
      adjustmentRows.push({
        bucket: bucketLabel(bucket.date, grouping),
        title: bucketTitle(bucket.date, grouping),
        evalType: ADJUSTMENTS_LABEL,
        value: microsToNumber(adjusted),
        adjustment: true,
      });
    }
  }
  const evalTypes = [...totals.entries()]
    .sort((a, b) => (a[1] === b[1] ? a[0].localeCompare(b[0]) : a[1] > b[1] ? -1 : 1))
    .map(([label]) => label);
  const order = new Map(evalTypes.map((t, i) => [t, i]));
  rows.sort((a, b) => (order.get(a.evalType) ?? 0) - (order.get(b.evalType) ?? 0));
  const colors = evalTypes.map(evalTypeColor);
  if (adjustmentRows.length) {
    evalTypes.push(ADJUSTMENTS_LABEL);
    colors.push(ADJUSTMENT_COLOR);
  }
  return {
    rows: [...rows, ...adjustmentRows],
    buckets: buckets.map((b) => bucketLabel(b.date, grouping)),
    evalTypes,
    colors,
  };
}

/** A tooltip value: "$1.25" for cost; "1 run" or "N usage" for usage. */
export function tooltipValue(value: number, metric: ChartMetric): string {
  if (metric === "cost") return formatMoney(value);
  const n = Math.round(value);
  return n === 1 ? "1 run" : `${n.toLocaleString("en-US")} usage`;
}

/** Usage axis ticks are whole numbers only; cost ticks read "$12". */
export function axisLabel(value: number, metric: ChartMetric): string {
  if (metric === "usage") return Number.isInteger(value) ? value.toLocaleString("en-US") : "";
  const text = `$${Math.abs(value).toLocaleString("en-US", { maximumFractionDigits: 2 })}`;
  return value < 0 ? `-${text}` : text;
}
