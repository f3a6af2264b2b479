// The first reads of the page a visit lands on, started as soon as the session is known and the
// current user may see the page, under the page's own query keys. Without this they start only
// when the page mounts, after the shell and the page have rendered (the longest wait of a visit on
// a busy machine); with it the page's first render finds them under way or answered. Only reads
// that decide what the page shows around its data and what it asks next are declared (Billing &
// Usage: the cycle list, which names the cycle of its usage calls): being in place before the page
// paints, nothing the page painted moves when they land.
import { keys, useCanWithoutCache, useDataProvider } from "@refinedev/core";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useLocation } from "react-router";
import { resources } from "../../resources";

/** The query key useCustom gives a GET of `url` with no query, headers or meta (Refine's builder). */
export function customGetKey(url: string) {
  return keys().data().mutation("custom").params({ method: "get", url }).get();
}

/** A first read already answered is not asked for again by a second landing within this time. */
const FIRST_READ_STALE_MS = 30_000;

/** Starts the landing page's first reads once, when the session is first known to be signed in. */
export function useFirstReads(authenticated: boolean) {
  const queryClient = useQueryClient();
  const dataProvider = useDataProvider();
  const { can } = useCanWithoutCache();
  const { pathname } = useLocation();
  const started = useRef(false);

  useEffect(() => {
    if (!authenticated || started.current) return;
    started.current = true;
    const resource = resources.find((r) => r.list === pathname && r.firstReads?.length);
    const custom = dataProvider().custom;
    if (!resource?.firstReads || !custom) return;
    const urls = resource.firstReads;
    // A user who may not see the page (the access-control provider's answer) is sent elsewhere by
    // its guard, and asks for nothing here.
    (can ? can({ resource: resource.name, action: "list" }) : Promise.resolve({ can: true })).then(
      (answer) => {
        if (!answer.can) return;
        for (const url of urls)
          void queryClient.prefetchQuery({
            queryKey: customGetKey(url),
            queryFn: () => custom({ url, method: "get" }),
            staleTime: FIRST_READ_STALE_MS,
          });
      },
      () => {},
    );
  }, [authenticated, pathname, can, dataProvider, queryClient]);
}
