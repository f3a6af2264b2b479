// Billing & Usage's first reads, started by the entry when a visit lands on "/" with its default
// view in the address (nothing, or what the records table writes for it: lib/default-view): the
// billing cycles, then, for the latest cycle, the page's default view (records page 1 sorted by
// date, the summary, the daily series on wide screens) and its other reads (workspaces, budgets,
// events awaiting pricing). Only for administrators (the page's access rule, read from the
// session's role): a member landing on "/" is sent elsewhere and asks for nothing here. The URLs
// are the ones the page's hooks build for that view (tests/unit/early-reads.test.ts checks them
// against the data provider); a view they do not match simply asks the API itself.
import type { BillingCycle } from "../../../contract/billing-cycle-schema";
import { type DefaultView, isDefaultView } from "../default-view";
import { type EarlyStart, type Read, readEarly } from "../read-early";
import type { SessionMembership } from "../session-membership";
import { sortCycles } from "./cycle-order";
import { RECORDS_PAGE_SIZE } from "./paging";

/** The organization's billing cycles: the page's first read (its usage calls name one of them). */
export const BILLING_CYCLES_PATH = "/v1/accounts/organization/billingcycles";

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

/** What the records table writes into the address for the default view. */
export const BILLING_DEFAULT_VIEW: DefaultView = {
  pageSize: RECORDS_PAGE_SIZE,
  sort: { field: "date", order: "desc" },
};

/** Every workspace, deleted ones included (the workspace select; Eval Runs' filter form). */
export const BILLING_WORKSPACES_READ: Read = { path: "/v1/workspaces/", query: { show_deleted: true } };

/** The page's reads that do not depend on the cycle. */
export const BILLING_OTHER_READS: Read[] = [
  BILLING_WORKSPACES_READ,
  { path: "/v1/budgets" },
  { path: "/v1/usage/awaiting-pricing" },
];

type Start = EarlyStart & { session: Promise<SessionMembership | null>; chartShown: boolean };

/** Starts the reads; the promise settles once every one of them has (at once when there are none). */
export async function startBillingEarlyReads(start: Start): Promise<void> {
  const { session, location, chartShown } = start;
  if (location.pathname !== "/") return;
  const early = (read: Read) => readEarly(start, read);
  if ((await session.catch(() => null))?.role !== "admin") return;
  const cycles = early({ path: BILLING_CYCLES_PATH });
  // Another view in the address (a period, filters, a page) asks for its own reads.
  if (!isDefaultView(location.search, BILLING_DEFAULT_VIEW) || !cycles) return;
  const others = BILLING_OTHER_READS.map(early);
  const list = await cycles.catch(() => null);
  const latest = Array.isArray(list) ? sortCycles(list as BillingCycle[]).at(-1) : undefined;
  const view = latest ? billingViewReads(latest.billing_cycle_uuid, chartShown).map(early) : [];
  start.allAsked?.();
  await Promise.allSettled([...others, ...view]);
}
