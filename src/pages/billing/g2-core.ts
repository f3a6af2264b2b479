// G2's public API without its package index, whose ready-made `Chart` is built at import time
// from G2's whole standard library: an import of anything from the index (@ant-design/plots
// imports `register` and `ChartEvent`) would keep all of that library in the bundle. The build
// resolves @ant-design/plots' imports of "@antv/g2" here (vite.config.ts).
export * from "@antv/g2/esm/exports";
