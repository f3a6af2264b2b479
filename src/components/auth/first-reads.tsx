// The first reads of the page a visit lands on, started as soon as the session is known and the
// current user may see the page, by the same Refine hooks with the same parameters as the page's
// own (so under the same query keys). Without this they start only when the page mounts, after
// the shell, the route guard and the page's code; with it the page's first render finds them under
// way or answered. Declared per resource (`firstReads`: custom GETs that decide what the page asks
// next, such as Billing & Usage's cycle list; `firstList`: the first page of the page's table).
// The hooks stay mounted only until their answer is in the cache, which the page then reads.
import { type HttpError, useCan, useCustom, useTable } from "@refinedev/core";
import { useEffect, useState } from "react";
import { useLocation } from "react-router";
import { useCurrentUser } from "../../hooks/use-current-user";
import { resources } from "../../resources";
import type { ConsoleResource, FirstList } from "../../resources/types";

/** Mounts the landing page's first reads once the session is known to be signed in. */
export function FirstReads({ authenticated }: { authenticated: boolean }) {
  const { pathname } = useLocation();
  // The page the visit landed on: a later navigation starts nothing here.
  const [landing] = useState(() => resources.find((r) => r.list === pathname));
  if (!authenticated || !landing || (!landing.firstReads?.length && !landing.firstList)) return null;
  return <AllowedFirstReads resource={landing} />;
}

/** A user who may not see the page (the access-control provider's answer, shared with the route
 * guard) is sent elsewhere by the guard, and asks for nothing here. */
function AllowedFirstReads({ resource }: { resource: ConsoleResource }) {
  const { data } = useCan({ resource: resource.name, action: "list" });
  const [settled, setSettled] = useState(0);
  const reads = (resource.firstReads?.length ?? 0) + (resource.firstList ? 1 : 0);
  if (!data?.can || settled >= reads) return null;
  const done = () => setSettled((n) => n + 1);
  return (
    <>
      {resource.firstReads?.map((url) => (
        <CustomRead key={url} url={url} onSettled={done} />
      ))}
      {resource.firstList ? (
        <ListRead resource={resource.name} list={resource.firstList} onSettled={done} />
      ) : null}
    </>
  );
}

function useSettled(settled: boolean, onSettled: () => void) {
  useEffect(() => {
    if (settled) onSettled();
  }, [settled, onSettled]);
}

/** A GET as the page's useCustom asks for it (no query, headers or meta). */
function CustomRead({ url, onSettled }: { url: string; onSettled: () => void }) {
  const { query } = useCustom({ url, method: "get", errorNotification: false });
  useSettled(query.isFetched, onSettled);
  return null;
}

/** The table's first page as components/table/use-list-table.ts asks for it on a bare address. */
function ListRead({
  resource,
  list,
  onSettled,
}: {
  resource: string;
  list: FirstList;
  onSettled: () => void;
}) {
  const { data: user } = useCurrentUser();
  const meta = user ? list.meta?.(user) : undefined;
  const waiting = !!list.meta && !meta;
  const { tableQuery } = useTable<Record<string, unknown>, HttpError>({
    resource,
    meta,
    pagination: { currentPage: 1, pageSize: list.pageSize, mode: "server" },
    sorters: list.sorters ? { mode: "server", initial: list.sorters } : { mode: "off" },
    filters: { mode: "server" },
    syncWithLocation: false,
    errorNotification: false,
    queryOptions: { enabled: !waiting },
  });
  useSettled(tableQuery.isFetched || (!!user && waiting), onSettled);
  return null;
}
