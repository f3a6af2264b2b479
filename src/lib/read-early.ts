// Starting one early read (lib/early-reads) through the fetch of the product API or of the identity
// service's client API, under the URL that fetch builds for the same path and query. Apart from
// lib/early-reads, which the fetches themselves import, so that the modules do not import each other.
import { type ApiFetch, buildUrl, type QueryValue } from "../providers/http";
import { startEarlyRead } from "./early-reads";

/** A GET, as the page's data provider sends it: of the product API unless it names the identity
 * service (the "identity" data provider). */
export type Read = { path: string; query?: Record<string, QueryValue>; service?: "identity" };

/** Where a service's reads go: its base URL (as its data provider has it) and its fetch. */
export type ReadService = { url: string; fetch: ApiFetch };

/** What the early reads of a landing page need. */
export type EarlyStart = {
  apiUrl: string;
  apiFetch: ApiFetch;
  /** The identity service's client API. */
  identity?: ReadService;
  location: { pathname: string; search: string };
  /** Called once every read the landing page makes has been started (not when it makes none). */
  allAsked?: () => void;
};

/** Starts `read` through its service's fetch (unless under way); its answer, or undefined. */
export function readEarly(start: EarlyStart, { path, query, service }: Read): Promise<unknown> | undefined {
  const to = service === "identity" ? start.identity : { url: start.apiUrl, fetch: start.apiFetch };
  if (!to) return undefined;
  let answer: Promise<unknown> | undefined;
  startEarlyRead(buildUrl(to.url, path, query), () => {
    answer = to.fetch(path, { query });
    return answer;
  });
  return answer;
}
