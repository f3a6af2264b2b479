// The sider's navigation list drawn as antd's inline Menu draws its items, from the same theme
// tokens (antd's menu style: item height, margins, radius, the selected, hover and pressed colours,
// the focus ring, the group title and the divider), so the list looks as the Menu did. Hover and
// focus need selectors, so the rules are a stylesheet, which React puts in the document's head once.
import type { GlobalToken } from "antd";

export const NAV_CLASS = "console-nav";

/** antd's Menu: `inlineIndent` (a first-level item's left padding) and its icon's gap to the label. */
const INLINE_INDENT = 24;

export function navStyles(token: GlobalToken): string {
  const n = `.${NAV_CLASS}`;
  const iconGap = token.controlHeightSM - token.fontSize;
  const margin = token.marginXXS;
  return `
${n} ul { list-style: none; margin: 0; padding: 0; }
${n}-item {
  display: flex; align-items: center; box-sizing: border-box;
  width: calc(100% - ${2 * margin}px); height: ${token.controlHeightLG}px; margin: ${margin}px;
  padding: 0 ${token.padding}px 0 ${INLINE_INDENT}px; border: 0; border-radius: ${token.borderRadiusLG}px;
  background: transparent; color: ${token.colorText}; font: inherit; font-size: ${token.fontSize}px;
  line-height: ${token.controlHeightLG}px; text-align: start; white-space: nowrap; cursor: pointer;
  transition: background-color ${token.motionDurationMid}, color ${token.motionDurationMid};
}
${n}-item:hover { background: ${token.colorBgTextHover}; color: ${token.colorText}; }
${n}-item:active { background: ${token.controlItemBgActive}; }
${n}-item[aria-current="page"] { background: ${token.controlItemBgActive}; color: ${token.colorPrimary}; }
${n}-item:focus-visible { outline: ${token.lineWidthFocus}px solid ${token.colorPrimaryBorder}; outline-offset: 1px; }
${n}-icon { display: inline-flex; flex: none; font-size: ${token.fontSize}px; }
${n}-label { margin-inline-start: ${iconGap}px; overflow: hidden; text-overflow: ellipsis; }
${n}-group {
  padding: ${token.paddingXS}px ${token.padding}px; color: ${token.colorTextDescription};
  font-size: ${token.fontSize}px; line-height: ${token.lineHeight};
}
${n}-divider { height: 0; margin: 1px 0; border: 0; border-top: ${token.lineWidth}px solid ${token.colorSplit}; }
${n}-collapsed ${n}-item { justify-content: center; padding: 0; }
${n}-collapsed ${n}-group,
${n}-collapsed ${n}-label {
  position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap;
}
`;
}
