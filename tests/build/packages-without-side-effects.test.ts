// The build leaves out a package imported for nothing (react-markdown, which @refinedev/antd imports
// for a field the console never shows), and keeps it whole where it is used.

import { build, type Plugin, type Rollup } from "vite";
import { describe, expect, it } from "vitest";
import { packagesWithoutSideEffects } from "../../scripts/packages-without-side-effects";

/** The bundle of `modules` (name → code; "entry" first, the others imported as "./name"), with or
 * without the plugin: its JavaScript. */
async function bundle(modules: Record<string, string>, withPlugin: boolean): Promise<string> {
  const virtual: Plugin = {
    name: "modules",
    resolveId: (id) => {
      const name = id.replace(/^\.\//, "");
      return name in modules ? `\0${name}` : null;
    },
    load: (id) => (id.startsWith("\0") ? modules[id.slice(1)] : null),
  };
  const output = (await build({
    configFile: false,
    logLevel: "silent",
    root: process.cwd(),
    plugins: [virtual, ...(withPlugin ? [packagesWithoutSideEffects()] : [])],
    build: {
      write: false,
      minify: false,
      rollupOptions: { input: "entry", output: { format: "es" } },
    },
  })) as Rollup.RollupOutput;
  return output.output.map((file) => (file.type === "chunk" ? file.code : "")).join("\n");
}

const UNUSED = `import ReactMarkdown from "react-markdown"; import remarkGfm from "remark-gfm";
export function Field(props) { return props.markdown ? [ReactMarkdown, remarkGfm] : null; }
export const shown = "plain";`;

describe("packages imported for nothing", () => {
  it("leaves out react-markdown and its parser when the module importing them is unused", {
    timeout: 60_000,
  }, async () => {
    // The field lives in a module of its own, as in @refinedev/antd's bundle, beside what is used.
    const modules = { entry: `import { shown } from "./unused"; console.log(shown);`, unused: UNUSED };
    const code = (plugin: boolean) => bundle(modules, plugin);
    const [without, withIt] = await Promise.all([code(false), code(true)]);
    // Without the plugin, the parser is in the bundle though nothing of it is used.
    expect(without).toContain("micromark");
    expect(without.length).toBeGreaterThan(100_000);
    expect(withIt).not.toContain("micromark");
    expect(withIt).toContain('"plain"');
    expect(withIt.length).toBeLessThan(2_000);
  });

  it("keeps react-markdown and its parser where they are used", { timeout: 60_000 }, async () => {
    const code = await bundle(
      { entry: `import ReactMarkdown from "react-markdown"; console.log(ReactMarkdown);` },
      true,
    );
    expect(code).toContain("micromark");
    expect(code.length).toBeGreaterThan(100_000);
  });
});
