// A product API for the tests of the entry's early reads (lib/early-reads, providers/first-answers):
// the billing cycles at their path, a page of rows naming its path for any other (or 500 for the
// `fail` paths), and the entry's way of starting a landing page's reads against it.
import { vi } from "vitest";
import { BILLING_CYCLES_PATH } from "../../../src/lib/billing/early-reads";
import type { startLandingReads } from "../../../src/lib/landing-reads";
import { createApiFetch } from "../../../src/providers/http";
import { API_URL, jsonResponse } from "./fakes";

type Options = { cycles: unknown[]; rows?: unknown[]; total?: number; fail?: string[] };

export function fakeEarlyApi({ cycles, rows = [{ usage_event_uuid: "e1" }], total = 1, fail = [] }: Options) {
  const fetchImpl = vi.fn<typeof fetch>(async (input) => {
    const url = new URL(String(input));
    if (fail.includes(url.pathname)) return jsonResponse(500, { error: { code: "x", message: "broken" } });
    if (url.pathname === BILLING_CYCLES_PATH) return jsonResponse(200, cycles);
    return jsonResponse(200, { records: rows, total, path: url.pathname });
  });
  const apiFetch = createApiFetch({ apiUrl: API_URL, getAccessToken: async () => "t", fetchImpl });
  /** The product API paths asked for so far, with their queries. */
  const urls = () => fetchImpl.mock.calls.map(([u]) => String(u).slice(API_URL.length));
  return { fetchImpl, apiFetch, urls };
}

export type FakeEarlyApi = ReturnType<typeof fakeEarlyApi>;

/** Runs `reads` (a landing page's, or Billing & Usage's) as the entry does for a session holding
 * `role` in organization "org-1", landing at `pathname` with `search`. */
export function landAs(
  reads: typeof startLandingReads,
  api: FakeEarlyApi,
  pathname: string,
  role: "admin" | "member",
  search = "",
  allAsked?: () => void,
) {
  return reads({
    allAsked,
    apiUrl: API_URL,
    apiFetch: api.apiFetch,
    session: Promise.resolve({ role, orgId: "org-1" }),
    location: { pathname, search },
    chartShown: true,
  });
}
