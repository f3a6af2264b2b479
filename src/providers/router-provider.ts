// Refine's React Router bindings as they are, except that `go` (what useGo and every table synced
// with the address write through) percent-encodes the query's values. The stock one writes them raw
// (https://github.com/refinedev/refine/issues/6659, closed as won't fix): a table search for "R&D"
// or "a+b" came back from a reload or a shared link as "R" or "a b". The stock `go` still builds
// the path and the hash; only the query string is written here, over the address on screen.
import type { GoConfig, RouterProvider } from "@refinedev/core";
import bindings from "@refinedev/react-router";
import { useCallback } from "react";
import { useLocation, useNavigate } from "react-router";
import { searchWith } from "../lib/address-query";

function useGo() {
  const stockGo = bindings.go?.();
  const { search } = useLocation();
  const navigate = useNavigate();
  return useCallback(
    ({ type, query, options, ...target }: GoConfig) => {
      const stock = String(
        stockGo?.({ ...target, options: { keepHash: options?.keepHash }, type: "path" }) ?? "",
      );
      const hashAt = stock.indexOf("#");
      const path = hashAt === -1 ? stock : stock.slice(0, hashAt);
      const hash = hashAt === -1 ? "" : stock.slice(hashAt);
      const full = `${path}${searchWith(options?.keepQuery ? search : "", query ?? {})}${hash}`;
      if (type === "path") return full;
      navigate(full, { replace: type === "replace" });
      return undefined;
    },
    [stockGo, search, navigate],
  );
}

export const routerProvider: RouterProvider = { ...bindings, go: useGo };
