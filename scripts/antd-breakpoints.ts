// The build's Vite plugin that gives antd's modules the console's Grid.useBreakpoint
// (src/lib/antd/use-breakpoint.ts says why: antd's renders every component that asks it twice
// before the first paint). antd's grid, table, pagination, list and row import the hook by a
// relative path, and Refine's antd useTable and ThemedLayout reach it through `Grid.useBreakpoint`,
// so the swap is made where antd's own files import it. The development server pre-bundles antd and
// keeps antd's hook (one render more, the same answers).
import type { Plugin } from "vite";

const ANTD_MODULE = /[\\/]antd[\\/]es[\\/]/;
const ANTD_BREAKPOINT_MODULE = /[\\/]antd[\\/]es[\\/]grid[\\/]hooks[\\/]useBreakpoint\.js$/;

export function breakpointsAnsweredAtOnce(replacement: string): Plugin {
  let replaced = false;
  return {
    name: "eval-console:breakpoints-answered-at-once",
    apply: "build",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (!importer || !ANTD_MODULE.test(importer) || !source.endsWith("useBreakpoint")) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (!resolved || !ANTD_BREAKPOINT_MODULE.test(resolved.id)) return null;
      replaced = true;
      return replacement;
    },
    buildEnd() {
      // A new antd that moved the hook would silently bring the extra renders back.
      if (!replaced) this.warn("antd's useBreakpoint module was not found: components render twice on mount");
    },
  };
}
