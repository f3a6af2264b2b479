// Refine's React Router bindings, with a `parse` made once per address (providers/address-parse)
// and a `go` (what every useGo and every table synced with the location navigates with) that
// differs from the stock one in two ways:
// - Values are percent-encoded. The stock one writes them raw (refinedev/refine#6659, closed as
//   won't fix): a table search for "R&D" or "a+b" came back from a reload or a shared link as "R"
//   or "a b".
// - A replace with the address already on screen is no navigation. Every table synced with the
//   location writes its parameters as it mounts, whether or not the address holds them already;
//   React Router would render the whole console again for it, after the first paint (on Billing &
//   Usage, 18-37 ms before the chart could draw), on every reload and every shared link.
// - `keepQuery` keeps the address as last written. React Router renders a navigation as a
//   transition, so the address a render sees can be older than one just written: two writers in a
//   row (a table's page, then the page's own parameter) each started from the address before the
//   other's change and undid it. A write made while the render still shows an address from before
//   the last write starts from that write instead.
import type { GoConfig, RouterProvider } from "@refinedev/core";
import bindings from "@refinedev/react-router";
import { useCallback, useEffect } from "react";
import { useLocation, useNavigate } from "react-router";
import { searchWith } from "../lib/address-query";
import { useParse } from "./address-parse";

/** The last address written, and the addresses a render may still show from before it. */
let lastWrite: { path: string; search: string; before: string[] } | null = null;

function useGo() {
  const { pathname, search, hash } = useLocation();
  const navigate = useNavigate();
  // Once the last write is on screen (committed: a transition's render may yet be thrown away),
  // another address is a navigation of its own (a link, Back), not one from before that write.
  const shown = `${pathname}${search}`;
  useEffect(() => {
    if (lastWrite?.path === shown) lastWrite.before = [];
  }, [shown]);
  return useCallback(
    ({ to, type, query, hash: toHash, options: { keepQuery, keepHash } = {} }: GoConfig) => {
      const behind = lastWrite !== null && (lastWrite.before.includes(shown) || lastWrite.path === shown);
      const current = behind && lastWrite ? lastWrite.search : search;
      const nextSearch = searchWith(keepQuery ? current : "", query ?? {});
      const fragment = (toHash || (keepHash ? hash : "") || "").replace(/^#/, "");
      const anchor = fragment ? `#${fragment}` : "";
      const path = `${to ?? ""}${nextSearch}${anchor}`;
      if (type === "path") return path;
      const written = `${to ?? pathname}${nextSearch}`;
      // Not while a write may still be on its way to the screen: the address shown may be older.
      const settled = lastWrite === null || lastWrite.before.length === 0;
      if (type === "replace" && settled && `${written}${anchor}` === `${shown}${hash}`) return undefined;
      lastWrite = {
        path: written,
        search: nextSearch,
        before: behind && lastWrite ? [...lastWrite.before, shown] : [shown],
      };
      navigate(path, { replace: type === "replace" });
      return undefined;
    },
    [shown, pathname, search, hash, navigate],
  );
}

export const routerProvider: RouterProvider = { ...bindings, go: useGo, parse: useParse };
