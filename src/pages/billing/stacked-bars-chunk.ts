// The chart's drawing as a chunk of its own (@ant-design/plots, its largest part): the billing
// resource starts its download once the page has mounted, while the page's data calls are under
// way, and the chart renders it without suspending once it is here (lib/preloadable).
import { preloadable } from "../../lib/preloadable";

export const stackedBars = preloadable(() => import("./stacked-bars").then((m) => m.default));

/** Starts the chunk's download (a failure is the chart's render to show). */
export function preloadStackedBars(): void {
  stackedBars.preload().catch(() => {});
}
