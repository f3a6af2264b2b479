// Below 768 px the sider becomes a drawer (spec §1, §9).
import { useEffect, useState } from "react";
import { DESKTOP_QUERY } from "../lib/breakpoints";

function isDesktop(): boolean {
  return typeof window.matchMedia === "function" ? window.matchMedia(DESKTOP_QUERY).matches : true;
}

export function useIsMobile(): boolean {
  const [mobile, setMobile] = useState(() => !isDesktop());
  useEffect(() => {
    if (typeof window.matchMedia !== "function") return;
    const query = window.matchMedia(DESKTOP_QUERY);
    const onChange = () => setMobile(!query.matches);
    query.addEventListener?.("change", onChange);
    onChange();
    return () => query.removeEventListener?.("change", onChange);
  }, []);
  return mobile;
}
