// Sider state: expanded/collapsed on desktop (persisted in the sidebar_state cookie) and
// open/closed as a drawer on mobile. Ctrl/Cmd+B toggles whichever applies.
import { useCallback, useEffect, useState } from "react";
import { isToggleSidebarShortcut } from "../lib/shortcuts";
import { readSidebarExpanded, writeSidebarExpanded } from "../lib/sidebar-cookie";
import { useIsMobile } from "./use-is-mobile";

export type SiderState = {
  isMobile: boolean;
  collapsed: boolean;
  mobileOpen: boolean;
  toggle: () => void;
  setMobileOpen: (open: boolean) => void;
};

export function useSiderState(): SiderState {
  const isMobile = useIsMobile();
  const [expanded, setExpanded] = useState(() => readSidebarExpanded());
  const [mobileOpen, setMobileOpen] = useState(false);

  const toggle = useCallback(() => {
    if (isMobile) {
      setMobileOpen((open) => !open);
      return;
    }
    setExpanded((current) => {
      const next = !current;
      writeSidebarExpanded(next);
      return next;
    });
  }, [isMobile]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!isToggleSidebarShortcut(event)) return;
      // Browsers bind Ctrl+B to bookmarks/bold; the console claims it like other admin UIs do.
      event.preventDefault();
      toggle();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [toggle]);

  // Leaving the mobile layout must not leave an invisible drawer open.
  useEffect(() => {
    if (!isMobile) setMobileOpen(false);
  }, [isMobile]);

  return { isMobile, collapsed: !expanded, mobileOpen, toggle, setMobileOpen };
}
