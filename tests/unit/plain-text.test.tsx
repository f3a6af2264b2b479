// Plain text is antd's Typography.Text as the page sees it (the same element, classes, attributes
// and styles), so a text can move from one to the other without a visible change; and antd's
// static stylesheet styles it without Typography ever rendering.
import { Typography } from "antd";
import type { ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { extractAntdStyles } from "../../scripts/extract-antd-styles";
import { PlainText, type PlainTextProps } from "../../src/components/plain-text";
import { ThemeShell } from "../../src/components/theme-shell";
import { declaredPaths, pathsOf } from "./support/antd-style-paths";

const markup = (node: ReactNode) => renderToStaticMarkup(<ThemeShell>{node}</ThemeShell>);

const CASES: [string, PlainTextProps][] = [
  ["no props", {}],
  [
    "secondary, with a style",
    { type: "secondary", style: { fontSize: 13, fontVariantNumeric: "tabular-nums" } },
  ],
  ["danger, strong", { type: "danger", strong: true }],
  ["success", { type: "success" }],
  ["code", { code: true, style: { fontSize: 12 } }],
  ["strong code, secondary", { code: true, strong: true, type: "secondary" }],
  ["warning, with a class", { type: "warning", className: "amount" }],
  ["attributes", { id: "total", role: "status", "aria-live": "polite", "data-testid": "summary-total" }],
  ["strong with a class and a style", { strong: true, className: "a b", style: { color: "red" } }],
];

describe("plain text", () => {
  it.each(CASES)("renders what antd's Typography.Text renders: %s", (_, props) => {
    const children = (
      <>
        $1.20 <b>·</b> 5%
      </>
    );
    const ours = markup(<PlainText {...props}>{children}</PlainText>);
    expect(ours).toBe(markup(<Typography.Text {...props}>{children}</Typography.Text>));
    expect(ours).toContain("ant-typography");
  });

  it("is styled by the build's static stylesheet, as antd's text is", () => {
    const declared = declaredPaths(extractAntdStyles());
    const typography = pathsOf(<Typography.Text type="secondary">x</Typography.Text>).filter((path) =>
      path.includes("Typography"),
    );
    expect(typography.length).toBeGreaterThan(0);
    expect(typography.filter((path) => !declared.has(path))).toEqual([]);
  });
});
