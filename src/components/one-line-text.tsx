// One line of text cut short with an ellipsis by CSS alone, in antd's own ellipsis classes; with
// `tooltip`, the whole text shows on hover when it is cut. antd's Typography `ellipsis` measures
// every text as soon as it mounts (it adds an element and reads both boxes), which makes the
// browser lay the page out again once per text before the first paint: on a warm visit to Billing
// & Usage, 38 ms of its first render. This reads the box only when the pointer arrives, the one
// moment the answer matters.
import { Tooltip } from "antd";
import { type MouseEvent, type ReactNode, useState } from "react";
import { PlainText, type PlainTextProps } from "./plain-text";

type Props = PlainTextProps & { tooltip?: ReactNode };

const CUT_CLASSES = "ant-typography-ellipsis ant-typography-ellipsis-single-line";

export function OneLineText({ tooltip, className, onMouseEnter, ...props }: Props) {
  const [cut, setCut] = useState(false);
  const text = (
    <PlainText
      {...props}
      className={className ? `${CUT_CLASSES} ${className}` : CUT_CLASSES}
      onMouseEnter={(event: MouseEvent<HTMLElement>) => {
        const box = event.currentTarget;
        setCut(box.scrollWidth > box.clientWidth);
        onMouseEnter?.(event);
      }}
    />
  );
  return tooltip === undefined ? text : <Tooltip title={cut ? tooltip : undefined}>{text}</Tooltip>;
}
