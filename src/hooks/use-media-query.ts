// Whether a CSS media query matches now, kept current as it changes (a resized window, a changed
// system setting). Where the browser has no matchMedia (tests' DOM), `fallback` stands in.
import { useCallback, useSyncExternalStore } from "react";

export function useMediaQuery(query: string, fallback: boolean): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      if (typeof window.matchMedia !== "function") return () => {};
      const list = window.matchMedia(query);
      list.addEventListener?.("change", onChange);
      return () => list.removeEventListener?.("change", onChange);
    },
    [query],
  );
  const matches = () =>
    typeof window.matchMedia === "function" ? window.matchMedia(query).matches : fallback;
  return useSyncExternalStore(subscribe, matches, () => fallback);
}
