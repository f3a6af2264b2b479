// The chart's drawing as a chunk of its own (@ant-design/plots, about 240 kB brotli): the billing
// resource preloads it while the page's data calls are under way, and the chart renders it without
// suspending once it is here.
import { preloadable } from "../../lib/preloadable";

export const stackedBars = preloadable(() => import("./stacked-bars").then((m) => m.default));
