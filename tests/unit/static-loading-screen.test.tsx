// index.html shows the console's loading screen before any script has run (the console's first
// render replaces it, with no render of its own for it): it must be exactly what React renders for
// components/feedback/loading-screen in the theme's shell, and antd's static stylesheet must hold
// its styles, or the first screen would differ from the one the console shows later.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { extractAntdStyles } from "../../scripts/extract-antd-styles";
import { LoadingScreen } from "../../src/components/feedback/loading-screen";
import { ThemeShell } from "../../src/components/theme-shell";
import { declaredPaths, pathsOf } from "./support/antd-style-paths";

const indexHtml = readFileSync(join(__dirname, "../../index.html"), "utf8");

function staticRoot(): string {
  const match = /<div id="root">([\s\S]*?)<\/div>\s*<script/.exec(indexHtml);
  if (!match?.[1]) throw new Error("index.html has no #root before its script");
  return match[1].trim();
}

describe("index.html's loading screen", () => {
  it("is the console's loading screen as React renders it in the theme", () => {
    const rendered = renderToStaticMarkup(
      <ThemeShell>
        <LoadingScreen />
      </ThemeShell>,
    );
    expect(staticRoot()).toBe(rendered);
    expect(staticRoot()).toContain(">Loading...</span>");
  });

  it("is styled by the build's static stylesheet alone", () => {
    const paths = pathsOf(<LoadingScreen />);
    const declared = declaredPaths(extractAntdStyles());
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((path) => !declared.has(path))).toEqual([]);
  });
});
