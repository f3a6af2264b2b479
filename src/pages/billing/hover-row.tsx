// A records row with its details card, shown on hover (after a short delay) or keyboard focus.
// The card's popover mounts on the row's first hover or focus: an antd Popover is nine components
// around each row (trigger, tooltip, motion, resize observer), ninety on a page of ten rows, for
// cards most rows never show. Once mounted, the popover's own trigger runs it, so the card stays
// open while the pointer moves onto it (it holds a link) and closes when the pointer leaves both.
import { Popover } from "antd";
import { type FocusEvent, type HTMLAttributes, type MouseEvent, useEffect, useRef, useState } from "react";
import type { UsageRecord } from "../../../contract/usage-schemas";
import { EventDetails } from "./event-details";

/** How long the pointer rests on a row before its card opens. */
export const HOVER_DELAY_S = 0.3;

type RowProps = HTMLAttributes<HTMLTableRowElement> & { record?: UsageRecord };

export function HoverRow({ record, ...props }: RowProps) {
  const [open, setOpen] = useState(false);
  const [mounted, setMounted] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  // The row the popover wraps is a new element: one mounted by a keyboard focus takes the focus.
  const refocus = useRef(false);
  const rowRef = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    if (mounted && refocus.current) {
      refocus.current = false;
      rowRef.current?.focus();
    }
  }, [mounted]);
  if (!record) return <tr {...props} />;

  const row = {
    ...props,
    tabIndex: 0,
    "aria-label": `Usage event ${record.name ?? record.usage_event_uuid}`,
  };
  if (!mounted) {
    // Until the first hover or focus: a plain row that mounts the card when it is wanted.
    const enter = (event: MouseEvent<HTMLTableRowElement>) => {
      props.onMouseEnter?.(event);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        setMounted(true);
        setOpen(true);
      }, HOVER_DELAY_S * 1000);
    };
    const leave = (event: MouseEvent<HTMLTableRowElement>) => {
      props.onMouseLeave?.(event);
      clearTimeout(timer.current);
    };
    const focus = (event: FocusEvent<HTMLTableRowElement>) => {
      props.onFocus?.(event);
      clearTimeout(timer.current);
      refocus.current = true;
      setMounted(true);
      setOpen(true);
    };
    return <tr {...row} onMouseEnter={enter} onMouseLeave={leave} onFocus={focus} />;
  }
  return (
    <Popover
      title="Usage Event Details"
      content={<EventDetails record={record} />}
      trigger={["hover", "focus"]}
      placement="top"
      mouseEnterDelay={HOVER_DELAY_S}
      open={open}
      onOpenChange={setOpen}
      destroyOnHidden
    >
      <tr {...row} ref={rowRef} />
    </Popover>
  );
}
