// One colour per eval type everywhere on the billing page (Usage Summary bars, the chart's bars
// and legend, whatever the grouping or the order by cost): the colour depends only on the label.
import { evalTypeLabel } from "../../../contract/eval-types";

/** The fixed colours of the known eval types (by display label). */
export const EVAL_TYPE_COLORS: Readonly<Record<string, string>> = {
  Safety: "#7c6cf2",
  "Image Safety": "#36cfc9",
  Jailbreak: "#f5a524",
  Accuracy: "#60a5fa",
};

/** Colours for other eval types, picked by a hash of the label (stable across views and loads). */
export const OTHER_EVAL_TYPE_COLORS = [
  "#f472b6",
  "#a3e635",
  "#fb923c",
  "#c084fc",
  "#2dd4bf",
  "#facc15",
] as const;

/** Credits and other price adjustments: a neutral colour no eval type uses, drawn hatched. */
export const ADJUSTMENT_COLOR = "#8c8c8c";

/** The colour of an eval type, given its raw value ("image_safety") or its label ("Image Safety"). */
export function evalTypeColor(evalType: string): string {
  const known = EVAL_TYPE_COLORS[evalType] ?? EVAL_TYPE_COLORS[evalTypeLabel(evalType)];
  if (known) return known;
  const label = evalTypeLabel(evalType);
  let hash = 0;
  for (const ch of label) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return OTHER_EVAL_TYPE_COLORS[hash % OTHER_EVAL_TYPE_COLORS.length] ?? ADJUSTMENT_COLOR;
}
