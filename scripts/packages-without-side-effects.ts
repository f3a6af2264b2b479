// The build's Vite plugin that tells the bundler which packages do nothing when imported. They only
// define functions and constants, but declare no `sideEffects` in their package, so the bundler
// keeps all of them, and everything they import, for what their import alone might do, even where
// nothing of theirs is used.
import type { Plugin } from "vite";

/**
 * - html2canvas (about 45 kB gzip), imported by @antv/g's image exporter, which draws a chart's HTML
 *   overlays into an exported picture; the console exports no pictures.
 * - react-markdown and remark-gfm, imported by @refinedev/antd for its MarkdownField, which the
 *   console never shows: with the markdown parser they import (micromark, mdast, unified,
 *   property-information…) about 140 kB of the shell's 1.42 MB, evaluated on every visit before
 *   the first page, and compiled on a first one.
 * - papaparse, imported by Refine's useImport and useExport, which the console does not use: its own
 *   CSV export (src/lib/billing/csv.ts) imports it, so it comes with the Billing & Usage page's code
 *   instead of the shell's.
 */
export const IMPORTED_FOR_NOTHING: readonly string[] = [
  "html2canvas",
  "react-markdown",
  "remark-gfm",
  "papaparse",
];

export function packagesWithoutSideEffects(packages: readonly string[] = IMPORTED_FOR_NOTHING): Plugin {
  const names = new Set(packages);
  return {
    name: "eval-console:packages-without-side-effects",
    apply: "build",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (!names.has(source)) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved && { ...resolved, moduleSideEffects: false };
    },
  };
}
