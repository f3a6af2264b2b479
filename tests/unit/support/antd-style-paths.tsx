// The antd style cache paths a render asks for, and the ones the build's static stylesheet
// (scripts/extract-antd-styles.tsx) declares: a path in both is a style the browser finds ready.
import { createCache, StyleProvider } from "@ant-design/cssinjs";
import { renderToString } from "react-dom/server";
import { ThemeShell } from "../../../src/components/theme-shell";

/** The cache paths the stylesheet declares (its `.data-ant-cssinjs-cache-path` rule). */
export function declaredPaths(css: string): Set<string> {
  const content = /\.data-ant-cssinjs-cache-path\{content:"([^"]*)";\}/.exec(css)?.[1] ?? "";
  return new Set(content.split(";").map((entry) => entry.slice(0, entry.lastIndexOf(":"))));
}

/** The style cache paths rendering `node` in the console's theme registers. */
export function pathsOf(node: React.ReactNode): string[] {
  const cache = createCache();
  renderToString(
    <StyleProvider cache={cache}>
      <ThemeShell>{node}</ThemeShell>
    </StyleProvider>,
  );
  return [...cache.cache.keys()]
    .filter((key) => key.startsWith("style%"))
    .map((key) => key.slice("style%".length).replaceAll("%", "|"));
}
