// Refine's `parse` router binding (what useParsed, useResourceParams and every table, button and
// menu hook read the address through), made once per address instead of once per hook. The stock
// binding (@refinedev/react-router) matches the path against every resource's routes in each
// hook that reads it, and on a list page (no route parameters) makes a new parameters object on
// every render, so every reader parses the query string again on every render: a third of the
// console's first render went there. This one gives the same answer, built once per address and
// shared by every reader until the address changes.
import {
  matchResourceFromRoute,
  type ParseResponse,
  QS_PARSE_DEPTH,
  ResourceContext,
  type RouterProvider,
} from "@refinedev/core";
import qs from "qs";
import { useContext, useMemo } from "react";
import { matchPath, useLocation, useParams } from "react-router";

type Resources = Parameters<typeof matchResourceFromRoute>[1];
type RouteParams = Record<string, string | undefined>;

/** As the stock binding: "2" → 2, anything else as it is. */
function numberIfPossible(value: unknown): unknown {
  if (typeof value === "undefined") return value;
  const num = Number(value);
  return `${num}` === value ? num : value;
}

/** The stock binding's answer for an address. */
export function parseAddress(
  resources: Resources,
  pathname: string,
  search: string,
  routeParams: RouteParams,
): ParseResponse {
  const { resource, action, matchedRoute } = matchResourceFromRoute(pathname, resources);
  const params =
    Object.keys(routeParams).length === 0 && matchedRoute
      ? ((matchPath(matchedRoute, pathname)?.params ?? {}) as RouteParams)
      : routeParams;
  const combined: Record<string, unknown> = {
    ...params,
    ...qs.parse(search, { ignoreQueryPrefix: true, depth: QS_PARSE_DEPTH }),
  };
  return {
    ...(resource && { resource }),
    ...(action && { action }),
    ...(params.id && { id: decodeURIComponent(params.id) }),
    pathname,
    params: {
      ...combined,
      currentPage: numberIfPossible(combined.currentPage),
      pageSize: numberIfPossible(combined.pageSize),
      to: combined.to ? decodeURIComponent(String(combined.to)) : undefined,
    } as ParseResponse["params"],
  };
}

/** The last few addresses' answers (a transition renders two addresses at once), per resource list. */
const answers = new WeakMap<Resources, Map<string, ParseResponse>>();
const KEPT = 8;

function parsedOnce(resources: Resources, pathname: string, search: string, routeParams: RouteParams) {
  const kept = answers.get(resources) ?? new Map<string, ParseResponse>();
  answers.set(resources, kept);
  const key = `${pathname}\n${search}\n${JSON.stringify(routeParams)}`;
  let parsed = kept.get(key);
  if (!parsed) {
    parsed = parseAddress(resources, pathname, search, routeParams);
    kept.set(key, parsed);
    if (kept.size > KEPT) kept.delete(kept.keys().next().value as string);
  }
  return parsed;
}

export const useParse: RouterProvider["parse"] = () => {
  const routeParams = useParams();
  const { pathname, search } = useLocation();
  const { resources } = useContext(ResourceContext);
  const parsed = parsedOnce(resources, pathname, search, routeParams);
  return useMemo(() => () => parsed, [parsed]);
};
