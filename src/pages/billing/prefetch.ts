// The Billing & Usage page's first reads, started as soon as the current user is known (see
// providers/prefetch.ts) instead of after the shell and the page have rendered: the cycle list,
// the workspaces, and the usage calls for the view the address names. Each is the exact request
// the page's hooks send, so the page's own calls are answered by these.
import { MOBILE_BREAKPOINT_PX } from "../../hooks/use-is-mobile";
import { usageQuery } from "../../lib/billing/filters";
import { RECORDS_PAGE_SIZE } from "../../lib/billing/paging";
import { parseBillingView } from "../../lib/billing/view-url";
import type { CurrentUser } from "../../providers/current-user-types";
import type { Prefetch } from "../../providers/prefetch";

export const BILLING_PATH = "/";

export function prefetchBillingPage(
  location: { pathname: string; search: string },
  user: CurrentUser,
  prefetch: Prefetch,
) {
  // The page is for organization administrators; members are sent elsewhere.
  if (location.pathname !== BILLING_PATH || !user.is_admin) return;
  const view = parseBillingView(new URLSearchParams(location.search));
  prefetch("/v1/accounts/organization/billingcycles");
  prefetch("/v1/workspaces/", { show_deleted: true });
  // With a period in the address the page names it once the cycle list confirms it (use-billing-state).
  const usage = usageQuery(view.cycleUuid, view.filters);
  prefetch("/v1/usage/summary", usage);
  const desktop =
    typeof window.matchMedia !== "function" ||
    window.matchMedia(`(min-width: ${MOBILE_BREAKPOINT_PX}px)`).matches;
  if (desktop) prefetch("/v1/usage/series", { ...usage, grouping: view.grouping });
  prefetch("/v1/usage/records", {
    ...usageQuery(view.cycleUuid, view.filters, view.search),
    page: view.page,
    page_size: RECORDS_PAGE_SIZE,
    sort: `${view.sort.order === "desc" ? "-" : ""}${view.sort.field}`,
  });
}
