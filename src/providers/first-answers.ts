// A page's first render holds the answers the entry read early (lib/early-reads), instead of asking
// for them from its effects after that render and drawing them one round of renders later. When
// react-query first builds a query of the product API or of the identity service whose GET has
// already been answered early, the query starts with that answer (initialData), which is then given
// as an answer (setData) so that the query counts as fetched: Refine's antd table shows a spinner,
// and Users its invitations card waits, until a query is. Its first mount does not read it again.
// The request is made from the query's key exactly as the data provider makes it from the hook's
// call (Refine's list and custom keys hold the call's parameters), so a key whose request differs
// from every early read simply finds none and is fetched as before.
import type { CrudFilter, CrudSort, Pagination } from "@refinedev/core";
import {
  type DefaultError,
  type DefaultedQueryObserverOptions,
  QueryClient,
  type QueryClientConfig,
  type QueryKey,
  type QueryObserverOptions,
} from "@tanstack/react-query";
import { EARLY_READ_TTL_MS, earlyReadsPending, takeArrivedEarlyRead } from "../lib/early-reads";
import { buildUrl, type QueryValue } from "./http";
import type { KnownAnswer, KnownAnswers } from "./known-answers";
import { customPath, listRequest, listResult } from "./rest-data-provider";

/** What a resource declares that a list call's meta takes from it (its `api`). */
export type Declared = { name: string; meta?: Record<string, unknown> };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A custom GET's key holds its method, URL and query; anything more (headers, meta) is not ours. */
const CUSTOM_GET_KEYS = new Set(["method", "url", "query"]);

/** The base URL of each data provider whose reads may be early (providers/data-provider). */
export type ProviderUrls = { default: string; identity?: string };

/**
 * The data a Refine query of the product API ("default" data provider) or of the identity service
 * ("identity") would hold, when its GET was read early and the answer has arrived: taken from the
 * early reads, once. `{ data }` is the query's data as the data provider's call resolves (custom:
 * `{ data: body }`; list: `{ data: rows, total }`).
 */
export function arrivedAnswer(key: QueryKey, urls: ProviderUrls, resources: readonly Declared[]) {
  const [scope, provider, name, action, params] = key;
  if (scope !== "data" || (provider !== "default" && provider !== "identity")) return undefined;
  const apiUrl = urls[provider];
  if (!apiUrl) return undefined;
  try {
    // ["data", "default", "custom", { method, url, query }]: useCustom (of the product API).
    if (name === "custom" && isRecord(action) && provider === "default") {
      const { method, url, query } = action;
      if (method !== "get" || typeof url !== "string") return undefined;
      if (Object.keys(action).some((field) => !CUSTOM_GET_KEYS.has(field))) return undefined;
      const path = customPath(apiUrl, url);
      const arrived = takeArrivedEarlyRead(buildUrl(apiUrl, path, query as Record<string, QueryValue>));
      // useCustom's data is the data provider's answer: { data: body }.
      return arrived && { data: { data: arrived.body } };
    }
    // ["data", provider, resource, "list", { ...meta, filters, pagination, sorters }]: useList.
    if (typeof name === "string" && action === "list" && isRecord(params)) {
      const { filters, pagination, sorters, ...keyMeta } = params;
      // The call's meta is the resource's, then the hook's (Refine's useMeta, with no address).
      const meta = { ...resources.find((r) => r.name === name)?.meta, ...keyMeta };
      const { api, path, query } = listRequest(name, {
        meta,
        filters: filters as CrudFilter[] | undefined,
        // A list paged in the browser has no pagination in its key, and sends none.
        pagination: (pagination as Pagination | undefined) ?? { mode: "off" },
        sorters: sorters as CrudSort[] | undefined,
      });
      const arrived = takeArrivedEarlyRead(buildUrl(apiUrl, path, query));
      return arrived && { data: listResult(api, arrived.body) };
    }
  } catch {
    // A key the data provider makes no request of (no api declared, a path value missing).
  }
  return undefined;
}

type First = { urls: ProviderUrls; resources: readonly Declared[]; known?: KnownAnswers };

/** The console's react-query client: queries start with the answers that arrived early, and the
 * shell's with those already known (providers/known-answers). */
export class FirstAnswersQueryClient extends QueryClient {
  readonly #seeds = new Map<string, KnownAnswer>();
  readonly #urls: ProviderUrls;
  readonly #resources: readonly Declared[];
  readonly #known: KnownAnswers;

  constructor(config: QueryClientConfig, first: First) {
    super(config);
    this.#urls = first.urls;
    this.#resources = first.resources;
    this.#known = first.known ?? (() => undefined);
    this.getQueryCache().subscribe((event) => {
      // A seeded query is built holding its answer (initialData), then given it as an answer
      // (setQueryData's way): initial data alone counts as never fetched, and Refine's antd tables
      // show their loading spinner over the rows until a query has fetched (`loading: !isFetched`).
      // Called as the query is built, before anything observes it.
      const seed = this.#seeds.get(event.query.queryHash);
      if (event.type === "added" && seed && event.query.state.dataUpdateCount === 0)
        event.query.setData(seed.data, { updatedAt: seed.at, manual: true });
      // A seed serves the mount it was read for: once that page lets go of the query, any later
      // mount reads it again as usual (its data may have changed meanwhile).
      if (event.type === "observerRemoved" && event.query.getObserversCount() === 0)
        this.#seeds.delete(event.query.queryHash);
    });
  }

  // Every query's options pass through here, on every render: those of an observer, then those
  // the query is built with. A seed is taken only for a query not built yet (an early read only
  // while some remain), and kept for the calls that follow.
  override defaultQueryOptions<
    TQueryFnData = unknown,
    TError = DefaultError,
    TData = TQueryFnData,
    TQueryData = TQueryFnData,
    TQueryKey extends QueryKey = QueryKey,
    TPageParam = never,
  >(
    options:
      | QueryObserverOptions<TQueryFnData, TError, TData, TQueryData, TQueryKey, TPageParam>
      | DefaultedQueryObserverOptions<TQueryFnData, TError, TData, TQueryData, TQueryKey>,
  ): DefaultedQueryObserverOptions<TQueryFnData, TError, TData, TQueryData, TQueryKey> {
    const defaulted = super.defaultQueryOptions(options);
    const hash = defaulted.queryHash;
    let seed = hash ? this.#seeds.get(hash) : undefined;
    if (!seed && hash && !this.getQueryCache().get(hash)) {
      const key = defaulted.queryKey as QueryKey;
      const arrived = earlyReadsPending() ? arrivedAnswer(key, this.#urls, this.#resources) : undefined;
      seed = arrived ? { data: arrived.data, at: Date.now() } : this.#known(key);
      if (seed) this.#seeds.set(hash, seed);
    }
    if (!seed) return defaulted;
    const { data, at } = seed;
    const refetchOnMount = defaulted.refetchOnMount;
    return {
      ...defaulted,
      initialData: data as never,
      initialDataUpdatedAt: at,
      // Just read: the page that mounts with it does not ask again (a Refresh still does). The
      // time is a guard for a seed whose page never mounted it; past it, the query's own rule
      // (a known answer older than its stale time is read again).
      refetchOnMount: ((query: never) =>
        Date.now() - at < EARLY_READ_TTL_MS
          ? false
          : typeof refetchOnMount === "function"
            ? refetchOnMount(query)
            : (refetchOnMount ?? true)) as never,
    };
  }
}
