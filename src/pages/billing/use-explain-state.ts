// Where "Explain this charge" is, kept in the address beside the page's view (lib/billing/explain):
// a reload or a shared link opens the same node and page. Opening the drill-down adds one history
// entry so Back closes it; moving inside it replaces the address, as the page's other changes do.
import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import type { ExplainNode } from "../../../contract/usage-explain";
import { type ExplainView, parseExplain, TOP, writeExplain } from "../../lib/billing/explain";

export function useExplainState() {
  const [params, setParams] = useSearchParams();
  const view = useMemo(() => parseExplain(params), [params]);
  // Functional updates: the page's own changes (use-billing-state) write other parameters of the
  // same address, and each must start from what the other wrote.
  const write = useCallback(
    (next: ExplainView | null, push = false) =>
      setParams((current) => writeExplain(next, current), { replace: !push }),
    [setParams],
  );
  const open = useCallback(() => write({ node: TOP, page: 1 }, true), [write]);
  const close = useCallback(() => write(null), [write]);
  const go = useCallback((node: ExplainNode) => write({ node, page: 1 }), [write]);
  const setPage = useCallback(
    (page: number) =>
      setParams(
        (current) => {
          const was = parseExplain(current);
          return writeExplain(was ? { ...was, page } : null, current);
        },
        { replace: true },
      ),
    [setParams],
  );
  return useMemo(() => ({ view, open, close, go, setPage }), [view, open, close, go, setPage]);
}

export type ExplainState = ReturnType<typeof useExplainState>;
