// A line of text in antd's Typography.Text markup (`<span class="ant-typography …">`, its colours
// from antd's stylesheet), without the component around it. Typography.Text mounts about ten
// components per text, a resize observer, its ellipsis and copy machinery and a tooltip slot
// among them, whether or not the text uses any of it: Billing & Usage shows some eighty texts,
// about a fifth of its first render's components. Text that needs one of those features (cut
// with an ellipsis, copyable, editable) keeps antd's component; tests/unit/plain-text.test.tsx
// holds the two to the same markup.
import type { HTMLAttributes, Ref } from "react";

export type PlainTextProps = Omit<HTMLAttributes<HTMLSpanElement>, "type"> & {
  /** antd's text types: the colour of secondary, success, warning or danger text. */
  type?: "secondary" | "success" | "warning" | "danger";
  /** Bold, in a `<strong>` as antd's `strong` puts it. */
  strong?: boolean;
  /** Code, in a `<code>` (around the `<strong>`, as antd nests them). */
  code?: boolean;
  "data-testid"?: string;
  /** The span (a tooltip around the text finds its box by it). */
  ref?: Ref<HTMLSpanElement>;
};

export function PlainText({ type, strong, code, className, style, children, ...rest }: PlainTextProps) {
  let classes = type ? `ant-typography ant-typography-${type}` : "ant-typography";
  if (className) classes = `${classes} ${className}`;
  const bold = strong ? <strong>{children}</strong> : children;
  return (
    <span className={classes} style={style} {...rest}>
      {code ? <code>{bold}</code> : bold}
    </span>
  );
}
