// Billing & Usage's first reads, started by the entry when a visit lands on "/" with no view in the
// address: the billing cycles, then, for the latest cycle, the page's default view (records page 1
// sorted by date, the summary, the daily series on wide screens) and its other reads (workspaces,
// budgets, events awaiting pricing). Only for administrators (the page's access rule): a member
// landing on "/" is sent elsewhere and asks for nothing here. The URLs are the ones the page's
// hooks build for that view (tests/unit/billing-early-reads.test.ts checks them against the data
// provider); a view they do not match simply asks the API itself.
import type { BillingCycle } from "../../../contract/billing-cycle-schema";
import type { CurrentUser } from "../../providers/current-user-types";
import type { ApiFetch, QueryValue } from "../../providers/http";
import { buildUrl } from "../../providers/http";
import { startEarlyRead } from "../early-reads";
import { sortCycles } from "./cycle-order";
import { RECORDS_PAGE_SIZE } from "./paging";

export const BILLING_CYCLES_PATH = "/v1/accounts/organization/billingcycles";

type Read = { path: string; query?: Record<string, QueryValue> };

/** The default view's reads for one cycle (no filters, no search, first page, newest first). */
export function billingViewReads(cycleUuid: string, chartShown: boolean): Read[] {
  const cycle = { billing_cycle_uuid: cycleUuid };
  return [
    {
      path: "/v1/usage/records",
      query: { ...cycle, page: 1, page_size: RECORDS_PAGE_SIZE, sort: "-date" },
    },
    { path: "/v1/usage/summary", query: cycle },
    ...(chartShown ? [{ path: "/v1/usage/series", query: { ...cycle, grouping: "daily" } }] : []),
  ];
}

/** The page's reads that do not depend on the cycle. */
export const BILLING_OTHER_READS: Read[] = [
  { path: "/v1/workspaces/", query: { show_deleted: true } },
  { path: "/v1/budgets" },
  { path: "/v1/usage/awaiting-pricing" },
];

type Start = {
  apiUrl: string;
  apiFetch: ApiFetch;
  user: Promise<CurrentUser>;
  location: { pathname: string; search: string };
  chartShown: boolean;
};

/** Starts the reads; the promise settles once every one of them has (at once when there are none). */
export async function startBillingEarlyReads({
  apiUrl,
  apiFetch,
  user,
  location,
  chartShown,
}: Start): Promise<void> {
  if (location.pathname !== "/") return;
  const early = ({ path, query }: Read) => {
    const url = buildUrl(apiUrl, path, query);
    let answer: Promise<unknown> | undefined;
    startEarlyRead(url, () => {
      answer = apiFetch(path, { query });
      return answer;
    });
    return answer;
  };
  const me = await user.catch(() => null);
  if (!me?.is_admin) return;
  const cycles = early({ path: BILLING_CYCLES_PATH });
  // Another view in the address (a period, filters, a page) asks for its own reads.
  if (location.search !== "" || !cycles) return;
  const others = BILLING_OTHER_READS.map(early);
  const list = await cycles.catch(() => null);
  const latest = Array.isArray(list) ? sortCycles(list as BillingCycle[]).at(-1) : undefined;
  const view = latest ? billingViewReads(latest.billing_cycle_uuid, chartShown).map(early) : [];
  await Promise.allSettled([...others, ...view]);
}
