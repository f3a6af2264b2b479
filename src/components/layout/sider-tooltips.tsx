// The collapsed sider's tooltips with the spec's timing (delay 700 ms, skip delay 300 ms), where
// antd's Menu would open its own after 100 ms: one controlled Tooltip, placed over the hovered
// entry. Entries get `title: ""`, antd's public way to give a collapsed item no tooltip of its own.
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

  /** Props for a trigger (a menu entry, or a button): its hover handlers, and no tooltip of antd's. */
  const trigger = (key: string, title: string) => ({
    title: "",
    onMouseEnter: (event: { domEvent?: { currentTarget: Element }; currentTarget?: Element }) => {
      const target = event.domEvent?.currentTarget ?? event.currentTarget;
      if (!enabled || !target) return;
      setHovered({ key, title, rect: target.getBoundingClientRect() });
      timing.enter(key);
    },
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
  return { trigger, tooltip };
}
