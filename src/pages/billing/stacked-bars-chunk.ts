// The chart's drawing as a chunk of its own (@ant-design/plots, its largest part): the billing
// resource starts its download once the page has mounted, while the page's data calls are under way,
// instead of when the series has arrived.
import { lazy } from "react";

const load = () => import("./stacked-bars");

export const StackedBars = lazy(load);

/** Starts the chunk's download (a failure is the chart's render to show). */
export function preloadStackedBars(): void {
  load().catch(() => {});
}
