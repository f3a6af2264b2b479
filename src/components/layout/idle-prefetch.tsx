// Runs a page's prefetch at the first idle moment after it mounts, in builds only (unit tests
// render pages without the heavy chunks' browser APIs).
import { useEffect } from "react";

export function IdlePrefetch({ run }: { run: () => void }) {
  useEffect(() => {
    if (!import.meta.env.PROD) return;
    if (typeof window.requestIdleCallback !== "function") {
      const timer = setTimeout(run, 200);
      return () => clearTimeout(timer);
    }
    const idle = window.requestIdleCallback(run);
    return () => window.cancelIdleCallback(idle);
  }, [run]);
  return null;
}
