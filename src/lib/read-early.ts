// Starting one early read (lib/early-reads) through the product API's fetch, under the URL that
// fetch builds for the same path and query. Apart from lib/early-reads, which the fetch itself
// imports, so that the two modules do not import each other.
import { type ApiFetch, buildUrl, type QueryValue } from "../providers/http";
import { startEarlyRead } from "./early-reads";

/** A GET of the product API: its path and query, as the page's data provider sends them. */
export type Read = { path: string; query?: Record<string, QueryValue> };

/** What the early reads of a landing page need. */
export type EarlyStart = {
  apiUrl: string;
  apiFetch: ApiFetch;
  location: { pathname: string; search: string };
};

/** Starts `read` through the product API's fetch (unless under way); its answer, or undefined. */
export function readEarly(
  { apiUrl, apiFetch }: EarlyStart,
  { path, query }: Read,
): Promise<unknown> | undefined {
  let answer: Promise<unknown> | undefined;
  startEarlyRead(buildUrl(apiUrl, path, query), () => {
    answer = apiFetch(path, { query });
    return answer;
  });
  return answer;
}
