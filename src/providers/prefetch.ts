// Answers fetched ahead of the page that will ask for them: a GET started early (as soon as the
// session and the current user are known, while the shell and the page still render) is handed to
// the first identical GET that follows, once, instead of a second request. Unclaimed answers are
// dropped after a few seconds, so a later read (a refresh, a revisit) always asks the server.
import type { ApiFetch, ApiRequest, QueryValue } from "./http";

export type Prefetch = (path: string, query?: Record<string, QueryValue>) => void;

export const PREFETCH_TTL_MS = 10_000;

/** A GET's identity: path and non-empty parameters in a fixed order (as buildUrl sends them). */
export function requestKey(path: string, query: Record<string, QueryValue> = {}): string {
  const params = Object.entries(query)
    .filter(([, v]) => v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.map(String).join("\u0000") : String(v)}`)
    .sort();
  return `${path}?${params.join("&")}`;
}

const isPlainGet = (r: ApiRequest) =>
  (r.method ?? "GET") === "GET" && r.body === undefined && r.read === undefined && r.headers === undefined;

export function withPrefetch(
  apiFetch: ApiFetch,
  ttlMs = PREFETCH_TTL_MS,
  now: () => number = Date.now,
): { apiFetch: ApiFetch; prefetch: Prefetch } {
  const pending = new Map<string, { promise: Promise<unknown>; at: number }>();
  const prefetch: Prefetch = (path, query) => {
    const key = requestKey(path, query);
    if (pending.has(key)) return;
    const promise = apiFetch(path, { query });
    // Nobody may claim it: a failure must not surface as an unhandled rejection (a claimer sees it).
    promise.catch(() => {});
    pending.set(key, { promise, at: now() });
  };
  const fetchThrough: ApiFetch = <T>(path: string, request: ApiRequest = {}) => {
    if (isPlainGet(request)) {
      const key = requestKey(path, request.query);
      const entry = pending.get(key);
      if (entry) {
        pending.delete(key);
        if (now() - entry.at < ttlMs) return entry.promise as Promise<T>;
      }
    }
    return apiFetch<T>(path, request);
  };
  return { apiFetch: fetchThrough, prefetch };
}
