// The entry's early reads of Billing & Usage: what it asks for, for whom, and that the page's own
// requests (made as its hooks make them, through the data provider) are answered by them instead of
// going to the network again.
import { afterEach, describe, expect, it, vi } from "vitest";
import { EVAL_RUN_PAGE_SIZE } from "../../contract/eval-run-paging";
import { BILLING_CYCLES_PATH, startBillingEarlyReads } from "../../src/lib/billing/early-reads";
import { DEFAULT_SORT, EMPTY_FILTERS, usageQuery } from "../../src/lib/billing/filters";
import { RECORDS_PAGE_SIZE } from "../../src/lib/billing/paging";
import { clearEarlyReads, EARLY_READ_TTL_MS, startEarlyRead, takeEarlyRead } from "../../src/lib/early-reads";
import { startLandingReads } from "../../src/lib/landing-reads";
import { API_KEY_PAGE_SIZE, AUDIT_PAGE_SIZE, USERS_PAGE_SIZE } from "../../src/lib/page-sizes";
import type { CurrentUser } from "../../src/providers/current-user-types";
import { createDataProviders } from "../../src/providers/data-provider";
import { createIdentityFetch, identityClientUrl } from "../../src/providers/identity-fetch";
import { createRestDataProvider } from "../../src/providers/rest-data-provider";
import { apiKeys } from "../../src/resources/api-keys";
import { auditLog } from "../../src/resources/audit-log";
import { budgets } from "../../src/resources/budgets";
import { evalRuns } from "../../src/resources/eval-runs";
import { organizationUsers } from "../../src/resources/organization-users";
import { usageRecords } from "../../src/resources/usage-records";
import { workspaces } from "../../src/resources/workspaces";
import { fakeEarlyApi, landAs } from "./support/early-api";
import { API_URL, AUTH_URL } from "./support/fakes";

const CYCLES = [
  { billing_cycle_uuid: "c-old", billing_cycle_start_date: "2026-09-01" },
  { billing_cycle_uuid: "c-new", billing_cycle_start_date: "2026-11-01" },
  { billing_cycle_uuid: "c-mid", billing_cycle_start_date: "2026-10-01" },
];

/** The API (support/early-api), and the data provider the pages read it through. */
function setup(fail: string[] = []) {
  const api = fakeEarlyApi({ cycles: CYCLES, fail });
  const dataProvider = createDataProviders({ apiUrl: API_URL, authUrl: AUTH_URL }, api.apiFetch).default;
  return { ...api, dataProvider };
}

/** Runs `reads` (the billing page's, or the landing page's) as the entry does for `user` at an address. */
const earlyReadsOf =
  (reads: typeof startLandingReads) =>
  (s: ReturnType<typeof setup>, pathname: string, user: Partial<CurrentUser>, search = "") =>
    landAs(reads, s, pathname, user.is_admin ? "admin" : "member", search);
const billingReads = earlyReadsOf(startBillingEarlyReads);
const start = (s: ReturnType<typeof setup>, user: Partial<CurrentUser>, search = "", pathname = "/") =>
  billingReads(s, pathname, user, search);

/** The page's first requests, made as its hooks make them for the default view of `cycle`. */
async function pageReads(s: ReturnType<typeof setup>, cycle: string) {
  const p = s.dataProvider;
  const custom = p.custom!;
  return Promise.all([
    custom({ url: BILLING_CYCLES_PATH, method: "get" }),
    p.getList({
      resource: usageRecords.name,
      meta: { ...usageRecords.meta, query: { billing_cycle_uuid: cycle } },
      pagination: { currentPage: 1, pageSize: RECORDS_PAGE_SIZE, mode: "server" },
      sorters: [DEFAULT_SORT],
      filters: [],
    }),
    custom({ url: "/v1/usage/summary", method: "get", query: usageQuery(cycle, EMPTY_FILTERS) }),
    custom({
      url: "/v1/usage/series",
      method: "get",
      query: { ...usageQuery(cycle, EMPTY_FILTERS), grouping: "daily" },
    }),
    p.getList({
      resource: workspaces.name,
      meta: { ...workspaces.meta, query: { show_deleted: true } },
      pagination: { mode: "off" },
    }),
    p.getList({ resource: budgets.name, meta: budgets.meta, pagination: { mode: "off" } }),
    custom({ url: "/v1/usage/awaiting-pricing", method: "get" }),
  ]);
}

afterEach(() => {
  clearEarlyReads();
  vi.useRealTimers();
});

describe("Billing & Usage early reads", () => {
  it("answers the page's first requests for an administrator landing on the default view", async () => {
    const s = setup();
    await start(s, { is_admin: true });
    expect(s.urls()).toEqual([
      BILLING_CYCLES_PATH,
      "/v1/workspaces/?show_deleted=true",
      "/v1/budgets",
      "/v1/usage/awaiting-pricing",
      // The latest cycle by start date, whatever the API's order.
      "/v1/usage/records?billing_cycle_uuid=c-new&page=1&page_size=10&sort=-date",
      "/v1/usage/summary?billing_cycle_uuid=c-new",
      "/v1/usage/series?billing_cycle_uuid=c-new&grouping=daily",
    ]);

    const answers = await pageReads(s, "c-new");
    // Nothing went to the network again, and each request got its own answer.
    expect(s.fetchImpl).toHaveBeenCalledTimes(7);
    expect(answers[0]).toEqual({ data: CYCLES });
    expect(answers[1]).toEqual({ data: [{ usage_event_uuid: "e1", id: "e1" }], total: 1 });
    expect(answers[2]).toMatchObject({ data: { path: "/v1/usage/summary" } });

    // Each early answer is given once: the next identical request asks the API.
    await pageReads(s, "c-new");
    expect(s.fetchImpl).toHaveBeenCalledTimes(14);
  });

  it("says when its last request has left: after the latest cycle's, which wait for the cycles", async () => {
    const s = setup();
    // What had been asked a task after the word (the fetch sends once the token is read).
    const askedBy: number[] = [];
    const allAsked = vi.fn(() => setTimeout(() => askedBy.push(s.urls().length), 0));
    await landAs(startBillingEarlyReads, s, "/", "admin", "", allAsked);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(allAsked).toHaveBeenCalledTimes(1);
    expect(askedBy).toEqual([7]);

    // A list page's, once its first page has left; a page that asks nothing never says it.
    const list = setup();
    const listAsked: number[] = [];
    await landAs(startLandingReads, list, "/organization/workspaces", "member", "", () =>
      setTimeout(() => listAsked.push(list.urls().length), 0),
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(listAsked).toEqual([1]);
    const none = vi.fn();
    await landAs(startBillingEarlyReads, setup(), "/", "member", "", none);
    await landAs(startLandingReads, setup(), "/eval-runs", "member", "", none);
    expect(none).not.toHaveBeenCalled();
  });

  it("asks for nothing for a member, or on another page", async () => {
    const s = setup();
    await start(s, { is_admin: false });
    await start(s, { is_admin: true }, "", "/eval-runs");
    expect(s.fetchImpl).not.toHaveBeenCalled();
  });

  it("asks only for the cycles when the address holds another view", async () => {
    const s = setup();
    await start(s, { is_admin: true }, "?period=c-old");
    expect(s.urls()).toEqual([BILLING_CYCLES_PATH]);
  });

  it("answers the default view on a reload, when the address holds what the records table wrote", async () => {
    const s = setup();
    await start(
      s,
      { is_admin: true },
      "?pageSize=10&currentPage=1&sorters[0][field]=date&sorters[0][order]=desc",
    );
    expect(s.urls()).toContain("/v1/usage/records?billing_cycle_uuid=c-new&page=1&page_size=10&sort=-date");
    // Another page of the records is another view. (An early read is handed out once: start anew.)
    clearEarlyReads();
    const other = setup();
    await start(
      other,
      { is_admin: true },
      "?pageSize=10&currentPage=2&sorters[0][field]=date&sorters[0][order]=desc",
    );
    expect(other.urls()).toEqual([BILLING_CYCLES_PATH]);
  });

  it("lets the page's own request fail with its own error when an early read failed", async () => {
    const s = setup(["/v1/usage/summary"]);
    await start(s, { is_admin: true });
    const custom = s.dataProvider.custom!;
    await expect(
      custom({ url: "/v1/usage/summary", method: "get", query: usageQuery("c-new", EMPTY_FILTERS) }),
    ).rejects.toMatchObject({ statusCode: 500, message: "broken" });
    // Asked again rather than handed the early failure.
    expect(s.urls().filter((u) => u.startsWith("/v1/usage/summary"))).toHaveLength(2);
  });

  it("does not hand out an answer older than its time to live", () => {
    const answer = Promise.resolve("old");
    startEarlyRead("u", () => answer, 1_000);
    expect(takeEarlyRead("u", 1_000 + EARLY_READ_TTL_MS + 1)).toBeUndefined();
    startEarlyRead("v", () => answer, 1_000);
    expect(takeEarlyRead("v", 1_000 + EARLY_READ_TTL_MS)).toBe(answer);
  });
});

describe("list pages' early reads", () => {
  const land = earlyReadsOf(startLandingReads);

  it("answers each list page's first page, as its table asks for it, without a second request", async () => {
    const s = setup();
    await land(s, "/eval-runs", { is_admin: true });
    await land(s, "/organization/audit-log", { is_admin: true });
    await land(s, "/organization/workspaces", { is_admin: true });
    const early = s.fetchImpl.mock.calls.length;
    expect(s.urls()).toEqual([
      "/v1/eval-runs?page=1&page_size=10&sort=-started_at",
      BILLING_CYCLES_PATH,
      "/v1/workspaces/?show_deleted=true",
      "/v1/audit-log?page=1&page_size=25",
      "/v1/workspaces/",
    ]);
    const p = s.dataProvider;
    const firstPage = (pageSize: number) => ({ currentPage: 1, pageSize, mode: "server" as const });
    await Promise.all([
      p.getList({
        resource: evalRuns.name,
        meta: evalRuns.meta,
        pagination: firstPage(EVAL_RUN_PAGE_SIZE),
        sorters: [{ field: "started_at", order: "desc" }],
        filters: [],
      }),
      p.custom!({ url: BILLING_CYCLES_PATH, method: "get" }),
      p.getList({
        resource: workspaces.name,
        meta: { ...workspaces.meta, query: { show_deleted: true } },
        pagination: { mode: "off" },
      }),
      p.getList({
        resource: auditLog.name,
        meta: auditLog.meta,
        pagination: firstPage(AUDIT_PAGE_SIZE),
        sorters: [],
        filters: [],
      }),
      p.getList({ resource: workspaces.name, meta: workspaces.meta, pagination: { mode: "off" } }),
    ]);
    expect(s.fetchImpl).toHaveBeenCalledTimes(early);
  });

  it("answers the identity service's lists (Users, Personal API Keys) as their tables ask for them", async () => {
    const s = setup();
    const send = createIdentityFetch({ authUrl: AUTH_URL, fetchImpl: s.fetchImpl });
    const identity = { url: identityClientUrl(AUTH_URL), fetch: send };
    const session = Promise.resolve({ role: "member" as const, orgId: "org 1" });
    for (const pathname of ["/users", "/account/api-keys"])
      await startLandingReads({
        apiUrl: API_URL,
        apiFetch: s.apiFetch,
        identity,
        session,
        location: { pathname, search: "" },
        chartShown: true,
      });
    expect(s.fetchImpl.mock.calls.map(([u]) => String(u))).toEqual([
      `${AUTH_URL}/api/fe/v3/org_membership/org%201/members?page_number=0&page_size=10`,
      `${AUTH_URL}/api/fe/v3/personal_api_keys?page_number=0&page_size=10`,
    ]);
    const p = createRestDataProvider({ apiUrl: identity.url, send });
    const firstPage = (pageSize: number) => ({ currentPage: 1, pageSize, mode: "server" as const });
    await Promise.all([
      p.getList({
        resource: organizationUsers.name,
        meta: { ...organizationUsers.meta, orgId: "org 1" },
        pagination: firstPage(USERS_PAGE_SIZE),
        sorters: [],
        filters: [],
      }),
      p.getList({
        resource: apiKeys.name,
        meta: apiKeys.meta,
        pagination: firstPage(API_KEY_PAGE_SIZE),
        sorters: [],
        filters: [],
      }),
    ]);
    expect(s.fetchImpl).toHaveBeenCalledTimes(2);
  });

  it("answers a list page's first page on a reload, when the address holds what its table wrote", async () => {
    const s = setup();
    await land(
      s,
      "/eval-runs",
      { is_admin: true },
      "?pageSize=10&currentPage=1&sorters[0][field]=started_at&sorters[0][order]=desc",
    );
    await land(
      s,
      "/organization/audit-log",
      { is_admin: true },
      `?pageSize=${AUDIT_PAGE_SIZE}&currentPage=1`,
    );
    expect(s.urls()).toEqual([
      `/v1/eval-runs?page=1&page_size=${EVAL_RUN_PAGE_SIZE}&sort=-started_at`,
      BILLING_CYCLES_PATH,
      "/v1/workspaces/?show_deleted=true",
      `/v1/audit-log?page=1&page_size=${AUDIT_PAGE_SIZE}`,
    ]);
    // Another order is another view: the page asks for it itself.
    const other = setup();
    await land(
      other,
      "/eval-runs",
      { is_admin: true },
      "?pageSize=10&currentPage=1&sorters[0][field]=cost&sorters[0][order]=desc",
    );
    expect(other.fetchImpl).not.toHaveBeenCalled();
  });

  it("follows each page's access rule, and asks nothing for an address with a view of its own", async () => {
    const s = setup();
    await land(s, "/eval-runs", { is_admin: false });
    await land(s, "/organization/audit-log", { is_admin: false });
    await land(s, "/organization/workspaces", { is_admin: true }, "?currentPage=2");
    expect(s.fetchImpl).not.toHaveBeenCalled();
    await land(s, "/organization/workspaces", { is_admin: false });
    expect(s.urls()).toEqual(["/v1/workspaces/"]);
  });
});
