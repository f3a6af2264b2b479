// The collapsed sider's tooltips with the spec's timing (delay 700 ms, skip delay 300 ms), where
// antd's Menu would open its own after 100 ms: one controlled Tooltip, placed over the hovered
// entry.
import { Tooltip } from "antd";
import { type CSSProperties, useEffect, useMemo, useState } from "react";
import { createTooltipTiming } from "../../lib/tooltip-timing";

type Hovered = { key: string; title: string; rect: DOMRect };

export function useSiderTooltips(enabled: boolean) {
  const [hovered, setHovered] = useState<Hovered | null>(null);
  const [openKey, setOpenKey] = useState<string | null>(null);
  const timing = useMemo(() => createTooltipTiming<string>(setOpenKey), []);
  useEffect(() => {
    if (!enabled) {
      timing.reset();
      setHovered(null);
    }
    return () => timing.reset();
  }, [enabled, timing]);

  const enter = (key: string, title: string, target: Element) => {
    if (!enabled) return;
    setHovered({ key, title, rect: target.getBoundingClientRect() });
    timing.enter(key);
  };
  /** Props for a trigger (a button): its hover handlers. */
  const trigger = (key: string, title: string) => ({
    onMouseEnter: (event: { currentTarget: Element }) => enter(key, title, event.currentTarget),
    onMouseLeave: () => timing.leave(key),
  });
  /** The same for a Menu item, whose handlers get the DOM event as `domEvent`. */
  const menuTrigger = (key: string, title: string) => ({
    onMouseEnter: ({ domEvent }: { domEvent: { currentTarget: Element } }) =>
      enter(key, title, domEvent.currentTarget),
    onMouseLeave: () => timing.leave(key),
  });

  const anchor: CSSProperties | undefined = hovered
    ? {
        position: "fixed",
        left: hovered.rect.left,
        top: hovered.rect.top,
        width: hovered.rect.width,
        height: hovered.rect.height,
        pointerEvents: "none",
      }
    : undefined;
  const tooltip = hovered ? (
    <Tooltip title={hovered.title} placement="right" open={enabled && openKey === hovered.key}>
      <span aria-hidden style={anchor} />
    </Tooltip>
  ) : null;
  return { trigger, menuTrigger, tooltip };
}
