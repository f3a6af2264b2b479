// "Explain this charge": where the drill-down is, held by the page's address (use-billing-address)
// beside the page's view, which writes it with the rest of the page. A reload or a shared link
// opens the same node and page; closing removes its parameters. Like every change on the page, each
// move replaces the address (Back leaves the page).
import { useCallback, useMemo } from "react";
import type { ExplainNode } from "../../../contract/usage-explain";
import { TOP } from "../../lib/billing/explain";
import type { BillingAddress } from "./use-billing-address";

export function useExplainState({
  explain: view,
  setExplain,
}: Pick<BillingAddress, "explain" | "setExplain">) {
  const open = useCallback(() => setExplain({ node: TOP, page: 1 }), [setExplain]);
  const close = useCallback(() => setExplain(null), [setExplain]);
  const go = useCallback((node: ExplainNode) => setExplain({ node, page: 1 }), [setExplain]);
  // From the drill-down as last set (a click just before may have moved it).
  const setPage = useCallback(
    (page: number) => setExplain((was) => (was ? { ...was, page } : null)),
    [setExplain],
  );
  return useMemo(() => ({ view, open, close, go, setPage }), [view, open, close, go, setPage]);
}

export type ExplainState = ReturnType<typeof useExplainState>;
