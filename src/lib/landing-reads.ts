// The early reads (lib/early-reads) of the page a visit lands on, when its address holds its
// default view (nothing, or what its table writes for that view: lib/default-view): Billing &
// Usage's (lib/billing/early-reads), and the first page of the list pages (the product API's and
// the identity service's) with what they read beside it. Each list's rule is its page's access rule
// (resources/*); a user the page would send elsewhere asks for nothing here. The URLs are the ones
// the pages' hooks build (tests/unit/early-reads.test.ts checks them).
import { EVAL_RUN_PAGE_SIZE } from "../../contract/eval-run-paging";
import { BILLING_CYCLES_PATH, BILLING_WORKSPACES_READ, startBillingEarlyReads } from "./billing/early-reads";
import { type DefaultView, isDefaultView } from "./default-view";
import { API_KEY_PAGE_SIZE, AUDIT_PAGE_SIZE, USERS_PAGE_SIZE } from "./page-sizes";
import { type EarlyStart, type Read, readEarly } from "./read-early";
import type { SessionMembership } from "./session-membership";

type ListPage = {
  adminsOnly: boolean;
  reads: Read[] | ((orgId: string) => Read[]);
  /** What the page's table writes into the address for the view the reads are of. */
  view?: DefaultView;
};

export const LIST_PAGE_READS: Record<string, ListPage> = {
  "/eval-runs": {
    adminsOnly: true,
    view: { pageSize: EVAL_RUN_PAGE_SIZE, sort: { field: "started_at", order: "desc" } },
    reads: [
      { path: "/v1/eval-runs", query: { page: 1, page_size: EVAL_RUN_PAGE_SIZE, sort: "-started_at" } },
      // Its filter form's choices.
      { path: BILLING_CYCLES_PATH },
      BILLING_WORKSPACES_READ,
    ],
  },
  "/organization/audit-log": {
    adminsOnly: true,
    view: { pageSize: AUDIT_PAGE_SIZE },
    reads: [{ path: "/v1/audit-log", query: { page: 1, page_size: AUDIT_PAGE_SIZE } }],
  },
  "/organization/workspaces": { adminsOnly: false, reads: [{ path: "/v1/workspaces/" }] },
  // The identity service's lists, zero-based pages.
  "/users": {
    adminsOnly: false,
    view: { pageSize: USERS_PAGE_SIZE },
    reads: (orgId) => [
      {
        service: "identity",
        path: `/org_membership/${encodeURIComponent(orgId)}/members`,
        query: { page_number: 0, page_size: USERS_PAGE_SIZE },
      },
    ],
  },
  "/account/api-keys": {
    adminsOnly: false,
    view: { pageSize: API_KEY_PAGE_SIZE },
    reads: [
      {
        service: "identity",
        path: "/personal_api_keys",
        query: { page_number: 0, page_size: API_KEY_PAGE_SIZE },
      },
    ],
  },
};

/** `session`: its organization and role (lib/session-membership), known one request before the
 * current user. */
type Start = EarlyStart & { session: Promise<SessionMembership | null>; chartShown: boolean };

/** Starts the landing page's early reads; settles once all have (at once when there are none). */
export async function startLandingReads(start: Start): Promise<void> {
  const { pathname, search } = start.location;
  if (pathname === "/") return startBillingEarlyReads(start);
  const page = LIST_PAGE_READS[pathname];
  if (!page || !isDefaultView(search, page.view)) return;
  const session = await start.session.catch(() => null);
  if (!session || (page.adminsOnly && session.role !== "admin")) return;
  const { orgId } = session;
  const reads = typeof page.reads === "function" ? (orgId ? page.reads(orgId) : []) : page.reads;
  const pending = reads.map((read) => readEarly(start, read));
  start.allAsked?.();
  await Promise.allSettled(pending);
}
