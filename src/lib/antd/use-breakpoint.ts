// antd's Grid.useBreakpoint (antd/es/grid/hooks/useBreakpoint), answered right on the first render.
// antd's hook answers its default ({} or null) on the first render and subscribes in a layout
// effect, whose first call answers the screens and forces a render whatever they are: every
// component that asks renders twice before its first paint. Refine's antd useTable asks, so a list
// page rendered itself twice, rows and all, and so did ThemedLayout, each table's pagination and
// each grid row. The build puts this module in the place of antd's (vite.config.ts,
// scripts/antd-breakpoints.ts): the same answer, from the same media queries, read on the first
// render, and a render after that only when a screen size has changed.
import useResponsiveObserver, { type ScreenMap } from "antd/es/_util/responsiveObserver";
import useLayoutEffect from "rc-util/es/hooks/useLayoutEffect";
import { useReducer, useRef } from "react";

/** Which of the media queries match now, as antd's observer answers once registered; undefined
 * without matchMedia (a server render), where antd's default stands. */
export function screensNow(queries: Record<string, string>): ScreenMap | undefined {
  if (typeof window === "undefined" || typeof window.matchMedia !== "function") return undefined;
  return Object.fromEntries(
    Object.entries(queries).map(([screen, query]) => [screen, window.matchMedia(query).matches]),
  );
}

export function sameScreens(a: ScreenMap | null | undefined, b: ScreenMap | null | undefined): boolean {
  if (!a || !b) return a === b;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => a[key as keyof ScreenMap] === b[key as keyof ScreenMap]);
}

export default function useBreakpoint(
  refreshOnChange = true,
  defaultScreens: ScreenMap | null = {},
): ScreenMap | null {
  const observer = useResponsiveObserver();
  const screensRef = useRef<ScreenMap | null | undefined>(undefined);
  if (screensRef.current === undefined)
    screensRef.current = screensNow(observer.responsiveMap) ?? defaultScreens;
  const [, forceUpdate] = useReducer((n: number) => n + 1, 0);
  // As antd's: subscribed once; the observer answers at once and on every change of a screen.
  useLayoutEffect(() => {
    const token = observer.subscribe((screens) => {
      const changed = !sameScreens(screensRef.current, screens);
      screensRef.current = screens;
      if (refreshOnChange && changed) forceUpdate();
    });
    return () => observer.unsubscribe(token);
  }, []);
  return screensRef.current ?? defaultScreens;
}
