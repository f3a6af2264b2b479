// Refine's React Router bindings as they are, except for two things in `go` (what useGo and every
// table synced with the address write through):
// - The query's values are percent-encoded. The stock one writes them raw
//   (https://github.com/refinedev/refine/issues/6659, closed as won't fix): a table search for
//   "R&D" or "a+b" came back from a reload or a shared link as "R" or "a b".
// - `keepQuery` keeps the address as last written. React Router renders a navigation as a
//   transition, so a render can still show the address from before a write just made: two writers
//   in a row (a table's page, then the page's own parameter) would each start from that older
//   address and undo the other's change.
// The stock `go` still builds the path and the hash; only the query string is written here.
import type { GoConfig, RouterProvider } from "@refinedev/core";
import bindings from "@refinedev/react-router";
import { useCallback, useEffect } from "react";
import { useLocation, useNavigate } from "react-router";
import { searchWith } from "../lib/address-query";

/** The last address written (`to`), and the one on screen when it was (`over`). */
let lastWrite: { to: string; search: string; over: string } | null = null;

function useGo() {
  const stockGo = bindings.go?.();
  const { pathname, search } = useLocation();
  const shown = `${pathname}${search}`;
  // Once the write is on screen, the address shown is the one to start from again.
  useEffect(() => {
    if (lastWrite?.to === shown) lastWrite = null;
  }, [shown]);
  const navigate = useNavigate();
  return useCallback(
    ({ type, query, options, ...target }: GoConfig) => {
      const stock = String(
        stockGo?.({ ...target, options: { keepHash: options?.keepHash }, type: "path" }) ?? "",
      );
      const hashAt = stock.indexOf("#");
      const path = hashAt === -1 ? stock : stock.slice(0, hashAt);
      const hash = hashAt === -1 ? "" : stock.slice(hashAt);
      const current = lastWrite?.over === shown ? lastWrite.search : search;
      const nextSearch = searchWith(options?.keepQuery ? current : "", query ?? {});
      const full = `${path}${nextSearch}${hash}`;
      if (type === "path") return full;
      lastWrite = { to: `${path || pathname}${nextSearch}`, search: nextSearch, over: shown };
      navigate(full, { replace: type === "replace" });
      return undefined;
    },
    [stockGo, shown, pathname, search, navigate],
  );
}

export const routerProvider: RouterProvider = { ...bindings, go: useGo };
