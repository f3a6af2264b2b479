// The Billing & Usage page alone, on the network as the product API answers it (mocked with msw):
// totals, period, summary, records with paging and sorting, filters, the view in the address,
// Refresh, and loading states that never show zeros.

import { parseTableParams } from "@refinedev/core";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { delay, HttpResponse, http } from "msw";
import { describe, expect, it, vi } from "vitest";
import type { SeriesBucket, UsageSummary } from "../../contract/usage-schemas";
import { BillingPage } from "../../src/pages/billing/billing-page";
import { api, renderPage } from "./support/render-page";
import { usageRecord } from "./support/usage-record";

// The chart library needs a canvas (jsdom has none); the legend shows what the chart was given.
vi.mock("@ant-design/plots", () => ({
  Column: (props: { data: unknown[] }) => <div data-testid="column-chart">{props.data.length} bars</div>,
}));

const JAN = "11111111-1111-4111-8111-111111111111";
const FEB = "22222222-2222-4222-8222-222222222222";
const WS = { research: "aaaaaaaa-0000-4000-8000-000000000001", red: "aaaaaaaa-0000-4000-8000-000000000002" };

const cycles = [
  {
    billing_cycle_uuid: FEB,
    billing_cycle_start_date: "2026-02-01",
    billing_cycle_end_date: null,
    paid_amount_usd: "0",
    total_cost: "30.50",
    unattributed_cost: "-3.20",
    workspace_groups: [
      { group_name: "Research", total_cost: "20.00", balance_remaining: "-80.00" },
      { group_name: "default", total_cost: "13.70", balance_remaining: "-1.00" },
    ],
    usage_breakdown: { usage_events: [] },
  },
  {
    billing_cycle_uuid: JAN,
    billing_cycle_start_date: "2026-01-01",
    billing_cycle_end_date: "2026-02-01",
    paid_amount_usd: "150",
    total_cost: "12.00",
    unattributed_cost: "0",
    workspace_groups: [{ group_name: "default", total_cost: "12.00", balance_remaining: "12.00" }],
    usage_breakdown: { usage_events: [] },
  },
];

const records = Array.from({ length: 25 }, (_, i) =>
  usageRecord({
    usage_event_uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    date: new Date(Date.UTC(2026, 1, 25 - i, 10, 30)).toISOString(),
    name: i === 3 ? null : `Eval ${i}`,
    operation: i % 2 ? "scoring" : "generation",
    eval_type: i % 3 ? "image_safety" : "safety",
    created_by: "ann@acme.test",
    quantity: i + 1,
    cost: (0.0125 * (i + 1)).toFixed(4),
    workspace_uuid: WS.research,
    workspace_name: "Safety Research",
    modality: "text",
    has_ground_truth: true,
  }),
);

const NONE = { events: 0, count: 0, cost: "0" };

const summary = (cycle: string): UsageSummary => ({
  billing_cycle_uuid: cycle,
  data_as_of: "2026-02-20T09:15:00.000Z",
  totals: { events: 25, count: 325, cost: cycle === FEB ? "4.0625" : "0" },
  adjustments: NONE,
  credits: NONE,
  charges: NONE,
  by_operation: [
    {
      operation: "generation",
      rule_metric: "eval",
      events: 13,
      count: 169,
      cost: "2.1125",
      adjustments: NONE,
    },
    { operation: "scoring", rule_metric: "prompt", events: 12, count: 156, cost: "1.95", adjustments: NONE },
  ],
  by_workspace: [
    {
      workspace_uuid: WS.research,
      workspace_name: "Safety Research",
      events: 20,
      count: 300,
      cost: "3.0625",
      adjustments: NONE,
    },
    {
      workspace_uuid: null,
      workspace_name: "No Workspace",
      events: 5,
      count: 25,
      cost: "1.00",
      adjustments: NONE,
    },
  ],
  by_eval_type: [
    { eval_type: "image_safety", events: 16, count: 200, cost: "2.5", adjustments: NONE },
    { eval_type: "safety", events: 9, count: 125, cost: "1.5625", adjustments: NONE },
  ],
  filter_options: {
    eval_types: ["image_safety", "safety"],
    operations: ["generation", "scoring"],
    modalities: ["text"],
    workspaces: [],
  },
});

const NO_ADJUSTMENTS = { events: 0, count: 0, price: "0" };
const bucket = (date: string, price: string, evalType = "safety"): SeriesBucket => ({
  date,
  events: 1,
  total_count: 1,
  total_price: price,
  adjustments: NO_ADJUSTMENTS,
  eval_types: [{ eval_type: evalType, events: 1, count: 1, price, adjustments: NO_ADJUSTMENTS }],
});

/** The product API as the page reads it; every request is kept for the assertions. */
function billingApi({
  recordsDelay = 0,
  cyclesDelay = 0,
  awaitingDelay = 0,
  awaitingEvents = 0,
  cycleList = cycles as readonly object[],
} = {}) {
  const seen: URL[] = [];
  let seriesBuckets = [bucket("2026-02-02", "1.5")];
  const keep = (request: Request) => {
    const url = new URL(request.url);
    seen.push(url);
    return url.searchParams;
  };
  const handlers = [
    http.get(api("/v1/accounts/organization/billingcycles"), async ({ request }) => {
      keep(request);
      await delay(cyclesDelay);
      return HttpResponse.json(cycleList);
    }),
    http.get(api("/v1/workspaces/"), ({ request }) => {
      keep(request);
      return HttpResponse.json([
        {
          workspace_uuid: WS.research,
          name: "Safety Research",
          organization_uuid: "org-1",
          organization_name: "Acme AI",
          member_count: 2,
        },
        {
          workspace_uuid: WS.red,
          name: "Red Team",
          organization_uuid: "org-1",
          organization_name: "Acme AI",
          member_count: 1,
          deleted_at: "2026-01-09T00:00:00Z",
        },
      ]);
    }),
    http.get(api("/v1/usage/awaiting-pricing"), async ({ request }) => {
      keep(request);
      await delay(awaitingDelay);
      return HttpResponse.json({
        events: awaitingEvents,
        oldest_occurred_at: awaitingEvents ? "2026-02-03T00:00:00Z" : null,
      });
    }),
    http.get(api("/v1/usage/summary"), ({ request }) =>
      HttpResponse.json(summary(keep(request).get("billing_cycle_uuid") ?? FEB)),
    ),
    http.get(api("/v1/usage/completeness"), ({ request }) => {
      keep(request);
      return HttpResponse.json({
        complete_through: "2026-02-20T09:00:00.000Z",
        senders: 1,
        late_events: 2,
        last_late_at: "2026-02-20T09:10:00.000Z",
        recent_late_events: [
          {
            event_id: "evt-late-2",
            occurred_at: "2026-02-20T08:30:00.000Z",
            received_at: "2026-02-20T09:10:00.000Z",
          },
          {
            event_id: "evt-late-1",
            occurred_at: "2026-02-19T23:00:00.000Z",
            received_at: "2026-02-20T09:05:00.000Z",
          },
        ],
        data_as_of: "2026-02-20T09:15:00.000Z",
      });
    }),
    http.get(api("/v1/usage/series"), ({ request }) => {
      const q = keep(request);
      // January has no usage to draw; without a period the API reads the current one.
      const cycle = q.get("billing_cycle_uuid") ?? FEB;
      return HttpResponse.json({
        billing_cycle_uuid: cycle,
        grouping: q.get("grouping"),
        buckets: cycle === FEB ? seriesBuckets : [],
      });
    }),
    http.get(api("/v1/usage/records"), async ({ request }) => {
      const q = keep(request);
      await delay(recordsDelay);
      const page = Number(q.get("page"));
      const size = Number(q.get("page_size"));
      const rows = q.get("sort") === "cost" ? [...records].reverse() : records;
      return HttpResponse.json({
        records: rows.slice((page - 1) * size, page * size),
        total: rows.length,
        page,
        page_size: size,
      });
    }),
  ];
  const calls = (path: string) => seen.filter((url) => url.pathname === path).map((url) => url.searchParams);
  return {
    handlers,
    calls,
    setSeries: (buckets: SeriesBucket[]) => {
      seriesBuckets = buckets;
    },
  };
}

function renderBilling(path = "/", options: Parameters<typeof billingApi>[0] = {}) {
  const network = billingApi(options);
  const view = renderPage(<BillingPage />, {
    path,
    me: { is_admin: true, workspace: { workspace_uuid: WS.red, name: "Red Team" } },
    handlers: network.handlers,
  });
  return { ...view, ...network };
}

/** The records table's state in an address (Refine's syncWithLocation parameters). */
function tableIn(location: string) {
  const { parsedCurrentPage, parsedSorter, parsedFilters } = parseTableParams(
    location.replace(/^[^?]*/, "") || "?",
  );
  return { page: parsedCurrentPage, sorters: parsedSorter, filters: parsedFilters };
}
/** The page's own parameters in an address (those that are not the table's). */
const pageParams = (location: string) =>
  [...new URLSearchParams(location.replace(/^[^?]*/, ""))].filter(
    ([key]) => !/^(currentPage|pageSize|sorters|filters)\b/.test(key),
  );
const DATE_DESC = [{ field: "date", order: "desc" }];

/** The usage records' header row (the budgets' Open Reservations table comes before it). */
const recordsHead = () =>
  [...document.querySelectorAll("thead")].find((h) => h.textContent?.includes("Cost")) as HTMLElement;
const tableSettled = () => waitFor(() => expect(document.querySelector(".ant-spin-blur")).toBeNull());
const pagerText = () => screen.getByTestId("records-pagination").textContent;

describe("Billing & Usage", { timeout: 60_000 }, () => {
  it("shows how many events await pricing, and never a zero while the count loads", async () => {
    renderBilling("/", { awaitingDelay: 400, awaitingEvents: 1204 });
    const line = await screen.findByTestId("awaiting-pricing");
    expect(line).toHaveTextContent("Checking for usage awaiting pricing…");
    expect(line.textContent).not.toMatch(/\b0\b/);
    await waitFor(() =>
      expect(screen.getByTestId("awaiting-pricing")).toHaveTextContent(
        "1,204 events awaiting pricing (not in this total)",
      ),
    );
  });

  it("says so when no usage awaits pricing", async () => {
    renderBilling();
    await waitFor(() =>
      expect(screen.getByTestId("awaiting-pricing")).toHaveTextContent("No usage awaiting pricing"),
    );
  });

  it("shows totals, the latest period, the summary and the first page of records", async () => {
    const { calls, location } = renderBilling();
    expect(await screen.findByText("Billing & Usage", { selector: "h2" })).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getByTestId("billing-period")).toHaveTextContent("Feb 1, 2026 - Present"),
    );
    expect(screen.getByLabelText("Next billing period")).toBeDisabled();

    const total = screen.getByTestId("total-cost");
    expect(within(total).getByText("$30.50")).toBeInTheDocument();
    expect(within(total).getByText("Research")).toBeInTheDocument();
    expect(within(total).getByText("Other")).toBeInTheDocument();
    expect(within(screen.getByTestId("paid")).getByText("$0.00")).toBeInTheDocument();
    const balance = within(screen.getByTestId("balance")).getByText("($3.20)");
    expect(balance).toHaveAttribute("data-credit", "true");

    expect(await screen.findByText("Evals Generated")).toBeInTheDocument();
    expect(screen.getByText("Responses Scored")).toBeInTheDocument();
    expect(screen.getByText("169 evals")).toBeInTheDocument();
    expect(screen.getByText("156 responses")).toBeInTheDocument();
    expect(screen.getByText("No Workspace")).toBeInTheDocument();
    expect(screen.getByTestId("data-as-of")).toHaveTextContent("Data as of Feb 20, 2026, 09:15:00 UTC");
    // How complete, beside how fresh: the eval services' watermark and the events that came late.
    expect(await screen.findByTestId("completeness")).toHaveTextContent(
      "Complete through Feb 20, 2026, 09:00:00 UTC · 2 events arrived late",
    );
    // The count opens the list of them.
    fireEvent.click(screen.getByTestId("late-events"));
    const list = await screen.findByTestId("late-events-list");
    expect(within(list).getByText("evt-late-2")).toBeInTheDocument();
    expect(within(list).getByText("Feb 19, 2026, 23:00 UTC")).toBeInTheDocument();

    expect(await screen.findByText("Eval 0")).toBeInTheDocument();
    expect(pagerText()).toBe("Page 1 of 3 (25 total records)");
    const missing = screen.getByText("Feb 22, 2026, 10:30 UTC").closest("tr") as HTMLElement;
    expect(within(missing).getByText("-")).toBeInTheDocument();
    expect(calls("/v1/usage/records")[0]?.get("sort")).toBe("-date");
    // The latest period is the API's own default: asked for without naming it.
    expect(calls("/v1/usage/records")[0]?.has("billing_cycle_uuid")).toBe(false);
    // The default view's address: the table's first page, by date, and no other parameter.
    await waitFor(() => expect(tableIn(location())).toEqual({ page: 1, sorters: DATE_DESC, filters: [] }));
    expect(pageParams(location())).toEqual([]);
  });

  it("pages and sorts the records, and the address follows", async () => {
    const user = userEvent.setup();
    const { calls, location } = renderBilling();
    await screen.findByText("Eval 0");
    await tableSettled();
    const pager = within(screen.getByRole("navigation", { name: "Records pages" }));
    await user.click(pager.getByRole("button", { name: "Next page" }));
    expect(await screen.findByText("Eval 10")).toBeInTheDocument();
    expect(pagerText()).toBe("Page 2 of 3 (25 total records)");
    await waitFor(() => expect(tableIn(location()).page).toBe(2));
    await tableSettled();
    await user.click(pager.getByRole("button", { name: "Last page" }));
    expect(await screen.findByText("Page 3 of 3 (25 total records)")).toBeInTheDocument();

    // Sorting by Cost starts ascending on the first page.
    await tableSettled();
    await user.click(within(recordsHead()).getByText("Cost"));
    await waitFor(() => expect(calls("/v1/usage/records").at(-1)?.get("sort")).toBe("cost"));
    expect(calls("/v1/usage/records").at(-1)?.get("page")).toBe("1");
    await waitFor(() =>
      expect(tableIn(location())).toEqual({
        page: 1,
        sorters: [{ field: "cost", order: "asc" }],
        filters: [],
      }),
    );
    // Clicking it again flips it.
    await tableSettled();
    await user.click(within(recordsHead()).getByText("Cost"));
    await waitFor(() => expect(calls("/v1/usage/records").at(-1)?.get("sort")).toBe("-cost"));
    await waitFor(() => expect(tableIn(location()).sorters).toEqual([{ field: "cost", order: "desc" }]));
  });

  it("steps through the periods; the latest one is the address without a period", async () => {
    const user = userEvent.setup();
    const { calls, location } = renderBilling();
    await waitFor(() =>
      expect(screen.getByTestId("billing-period")).toHaveTextContent("Feb 1, 2026 - Present"),
    );
    await user.click(screen.getByLabelText("Previous billing period"));
    expect(screen.getByTestId("billing-period")).toHaveTextContent("Jan 1, 2026 - Feb 1, 2026");
    expect(screen.getByLabelText("Previous billing period")).toBeDisabled();
    await waitFor(() => expect(calls("/v1/usage/summary").at(-1)?.get("billing_cycle_uuid")).toBe(JAN));
    expect(await screen.findByText("No usage data available")).toBeInTheDocument();
    expect(pageParams(location())).toEqual([["period", JAN]]);
    await user.click(screen.getByLabelText("Next billing period"));
    expect(screen.getByTestId("billing-period")).toHaveTextContent("Feb 1, 2026 - Present");
    expect(pageParams(location())).toEqual([]);
  });

  it("moves one period per click, however quickly the clicks come", async () => {
    const DEC = "33333333-3333-4333-8333-333333333333";
    const december = {
      ...(cycles[1] as object),
      billing_cycle_uuid: DEC,
      billing_cycle_start_date: "2025-12-01",
      billing_cycle_end_date: "2026-01-01",
    };
    const { location } = renderBilling("/", { cycleList: [...cycles, december] });
    await waitFor(() =>
      expect(screen.getByTestId("billing-period")).toHaveTextContent("Feb 1, 2026 - Present"),
    );
    // Two clicks before the page renders again (as when a render is slow or deferred).
    const back = screen.getByLabelText("Previous billing period");
    act(() => {
      fireEvent.click(back);
      fireEvent.click(back);
    });
    await waitFor(() =>
      expect(screen.getByTestId("billing-period")).toHaveTextContent("Dec 1, 2025 - Jan 1, 2026"),
    );
    expect(pageParams(location())).toEqual([["period", DEC]]);
    const forward = screen.getByLabelText("Next billing period");
    act(() => {
      fireEvent.click(forward);
      fireEvent.click(forward);
    });
    await waitFor(() =>
      expect(screen.getByTestId("billing-period")).toHaveTextContent("Feb 1, 2026 - Present"),
    );
    expect(pageParams(location())).toEqual([]);
  });

  it("follows an address it did not write: a link to the bare page opens the default view", async () => {
    const { router, location, calls } = renderBilling(
      `/?period=${JAN}&grouping=weekly&currentPage=2&pageSize=10`,
    );
    await waitFor(() =>
      expect(screen.getByTestId("billing-period")).toHaveTextContent("Jan 1, 2026 - Feb 1, 2026"),
    );
    await screen.findByText("Page 2 of 3 (25 total records)");
    // The sider's link to the page, clicked while on it.
    await act(() => router.navigate("/"));
    await waitFor(() =>
      expect(screen.getByTestId("billing-period")).toHaveTextContent("Feb 1, 2026 - Present"),
    );
    await screen.findByText("Page 1 of 3 (25 total records)");
    await waitFor(() => expect(tableIn(location())).toEqual({ page: 1, sorters: DATE_DESC, filters: [] }));
    expect(pageParams(location())).toEqual([]);
    expect(calls("/v1/usage/series").at(-1)?.get("grouping")).toBe("daily");
  });

  it("filters every view, counts active filters, and keeps them in the address", async () => {
    // The checkbox drawn inside a menu item ignores the pointer; the item takes the click.
    const user = userEvent.setup({ pointerEventsCheck: 0 });
    const { calls, location } = renderBilling();
    await screen.findByText("Eval 0");
    await tableSettled();

    await user.click(screen.getByLabelText("Eval Type: All"));
    const inMenu = (els: HTMLElement[]) => els.find((el) => el.closest(".ant-dropdown")) as HTMLElement;
    await user.click(inMenu(await screen.findAllByLabelText("Image Safety")));
    await waitFor(() =>
      expect(calls("/v1/usage/summary").at(-1)?.getAll("eval_type")).toEqual(["image_safety"]),
    );
    await waitFor(() =>
      expect(calls("/v1/usage/records").at(-1)?.getAll("eval_type")).toEqual(["image_safety"]),
    );
    expect(calls("/v1/usage/series").at(-1)?.getAll("eval_type")).toEqual(["image_safety"]);
    await user.keyboard("{Escape}");
    expect(screen.getByLabelText("Eval Type: Image Safety")).toBeInTheDocument();
    const clear = await screen.findByText("Clear all (1)");
    const evalTypeFilter = { field: "eval_type", operator: "in", value: ["image_safety"] };
    await waitFor(() => expect(tableIn(location()).filters).toEqual([evalTypeFilter]));

    await user.click(screen.getByLabelText("Workspace: All workspaces"));
    await user.click(inMenu(await screen.findAllByText("My workspace (Red Team)")));
    expect(await screen.findByLabelText("Workspace: Red Team")).toBeInTheDocument();
    await waitFor(() =>
      expect(calls("/v1/usage/summary").at(-1)?.getAll("workspace_uuid")).toEqual([WS.red]),
    );
    const workspaceFilter = { field: "workspace_uuid", operator: "in", value: [WS.red] };
    await waitFor(() => expect(tableIn(location()).filters).toEqual([workspaceFilter, evalTypeFilter]));

    await user.click(clear);
    await waitFor(() => expect(screen.queryByText(/Clear all/)).not.toBeInTheDocument());
    await waitFor(() => expect(calls("/v1/usage/summary").at(-1)?.getAll("eval_type")).toEqual([]));
    await waitFor(() => expect(tableIn(location()).filters).toEqual([workspaceFilter]));
  });

  it("searches the records only, once typing pauses, and keeps the search in the address", async () => {
    const user = userEvent.setup();
    const { calls, location } = renderBilling();
    await screen.findByText("Eval 0");
    await tableSettled();
    await user.type(screen.getByPlaceholderText("Search..."), "Eval 1");
    await waitFor(() => expect(calls("/v1/usage/records").at(-1)?.get("search")).toBe("Eval 1"));
    // One request for the whole word; the summary and chart are not searched.
    expect(calls("/v1/usage/records").filter((q) => q.get("search") === "Eval ")).toHaveLength(0);
    expect(calls("/v1/usage/summary").some((q) => q.has("search"))).toBe(false);
    expect(calls("/v1/usage/series").some((q) => q.has("search"))).toBe(false);
    await waitFor(() =>
      expect(tableIn(location()).filters).toEqual([
        { field: "search", operator: "contains", value: "Eval 1" },
      ]),
    );
  });

  it("opens a linked view: period, filters, chart grouping, search, sort and page", async () => {
    // A link from before the table kept its state in Refine's parameters: translated once.
    const { calls, location } = renderBilling(
      `/?period=${JAN}&eval_type=safety&ground_truth=with&grouping=weekly&metric=usage&search=Eval&sort=-cost&page=2`,
    );
    await waitFor(() =>
      expect(screen.getByTestId("billing-period")).toHaveTextContent("Jan 1, 2026 - Feb 1, 2026"),
    );
    expect(await screen.findByText("Page 2 of 3 (25 total records)")).toBeInTheDocument();
    const first = calls("/v1/usage/records")[0];
    expect(first?.get("billing_cycle_uuid")).toBe(JAN);
    expect(first?.get("page")).toBe("2");
    expect(first?.get("sort")).toBe("-cost");
    expect(first?.get("search")).toBe("Eval");
    expect(first?.getAll("eval_type")).toEqual(["safety"]);
    expect(first?.get("ground_truth")).toBe("with");
    // Only the linked page was read: no detour through page 1 or the latest cycle.
    expect(calls("/v1/usage/records").every((q) => q.get("page") === "2")).toBe(true);
    expect(calls("/v1/usage/summary").every((q) => q.get("billing_cycle_uuid") === JAN)).toBe(true);

    expect(screen.getByLabelText("Eval Type: Safety")).toBeInTheDocument();
    expect(screen.getByText("Clear all (2)")).toBeInTheDocument();
    expect(screen.getByPlaceholderText("Search...")).toHaveValue("Eval");
    expect(await screen.findByText("Usage Over Time")).toBeInTheDocument();
    expect(screen.getByRole("radio", { name: "Weekly" })).toBeChecked();
    expect(calls("/v1/usage/series").at(-1)?.get("grouping")).toBe("weekly");
    const costHeader = within(recordsHead()).getByText("Cost").closest("th");
    expect(costHeader).toHaveAttribute("aria-sort", "descending");
    expect(tableIn(location())).toEqual({
      page: 2,
      sorters: [{ field: "cost", order: "desc" }],
      filters: [
        { field: "eval_type", operator: "in", value: ["safety"] },
        { field: "ground_truth", operator: "eq", value: "with" },
        { field: "search", operator: "contains", value: "Eval" },
      ],
    });
    expect(Object.fromEntries(pageParams(location()))).toEqual({
      period: JAN,
      grouping: "weekly",
      metric: "usage",
    });

    // Another period starts at its first page, with the same filters.
    const user = userEvent.setup();
    await tableSettled();
    await user.click(screen.getByLabelText("Next billing period"));
    expect(await screen.findByText("Page 1 of 3 (25 total records)")).toBeInTheDocument();
    await waitFor(() => expect(tableIn(location()).page).toBe(1));
    expect(calls("/v1/usage/records").at(-1)?.has("billing_cycle_uuid")).toBe(false);
    expect(calls("/v1/usage/records").at(-1)?.get("page")).toBe("1");
    expect(pageParams(location())).toEqual([
      ["grouping", "weekly"],
      ["metric", "usage"],
    ]);
    expect(tableIn(location()).filters).toHaveLength(3);
  });

  it("opens the default view from a link with unusable values, and cleans the address", async () => {
    const { calls, location } = renderBilling(
      "/?period=oops&page=abc&sort=-password&grouping=hourly&ground_truth=maybe&workspace=nope&utm=mail",
    );
    await waitFor(() =>
      expect(screen.getByTestId("billing-period")).toHaveTextContent("Feb 1, 2026 - Present"),
    );
    expect(await screen.findByText("Page 1 of 3 (25 total records)")).toBeInTheDocument();
    expect(calls("/v1/usage/records")[0]?.get("sort")).toBe("-date");
    expect(calls("/v1/usage/records")[0]?.get("page")).toBe("1");
    expect(calls("/v1/usage/series").at(-1)?.get("grouping")).toBe("daily");
    expect(calls("/v1/usage/summary").some((q) => q.has("workspace_uuid") || q.has("ground_truth"))).toBe(
      false,
    );
    // Parameters that are not the page's are left alone.
    await waitFor(() => expect(tableIn(location())).toEqual({ page: 1, sorters: DATE_DESC, filters: [] }));
    expect(pageParams(location())).toEqual([["utm", "mail"]]);
  });

  it("opens the latest cycle and the last page for a link to a cycle or page that no longer exists", async () => {
    const gone = "33333333-3333-4333-8333-333333333333";
    const { calls, location } = renderBilling(`/?period=${gone}&page=40`);
    await waitFor(() =>
      expect(screen.getByTestId("billing-period")).toHaveTextContent("Feb 1, 2026 - Present"),
    );
    expect(await screen.findByText("Page 3 of 3 (25 total records)")).toBeInTheDocument();
    expect(calls("/v1/usage/summary").some((q) => q.get("billing_cycle_uuid") === gone)).toBe(false);
    await waitFor(() => expect(tableIn(location()).page).toBe(3));
    expect(pageParams(location())).toEqual([]);
  });

  it("Refresh reads everything again, the chart's series included, and the chart redraws", async () => {
    const user = userEvent.setup();
    const { calls, setSeries } = renderBilling();
    const legend = await screen.findByTestId("chart-legend");
    expect(legend).toHaveTextContent("Safety");
    await screen.findByText("Eval 0");
    await tableSettled();
    const count = (path: string) => calls(path).length;
    const counts = {
      cycles: count("/v1/accounts/organization/billingcycles"),
      summary: count("/v1/usage/summary"),
      series: count("/v1/usage/series"),
      records: count("/v1/usage/records"),
    };
    setSeries([bucket("2026-02-02", "1.5"), bucket("2026-02-03", "2.5", "jailbreak")]);

    await user.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() => expect(screen.getByTestId("chart-legend")).toHaveTextContent("Jailbreak"));
    expect(calls("/v1/usage/series").length).toBe(counts.series + 1);
    expect(calls("/v1/accounts/organization/billingcycles").length).toBe(counts.cycles + 1);
    expect(calls("/v1/usage/summary").length).toBe(counts.summary + 1);
    await waitFor(() => expect(calls("/v1/usage/records").length).toBe(counts.records + 1));
  });

  it("never shows a zero count while loading: the pager waits for the records, then shows them", async () => {
    const { calls } = renderBilling("/", { cyclesDelay: 300, recordsDelay: 600 });
    const texts: string[] = [];
    const pager = await screen.findByTestId("records-pagination");
    const observer = new MutationObserver(() => texts.push(pager.textContent ?? ""));
    observer.observe(pager, { childList: true, characterData: true, subtree: true });
    texts.push(pager.textContent ?? "");

    expect(await screen.findByText("Page 1 of 3 (25 total records)", {}, { timeout: 5_000 })).toBe(pager);
    observer.disconnect();
    expect(calls("/v1/usage/records")).toHaveLength(1);
    expect(texts.some((t) => /\b0 total records/.test(t))).toBe(false);
    expect(texts.every((t) => t === "Loading..." || t === "Page 1 of 3 (25 total records)")).toBe(true);
    // The same element from the first render to the answer: the pager never left the page.
    expect(screen.getByTestId("records-pagination")).toBe(pager);
  });

  it("asks for the latest period's usage without waiting for the list of cycles", async () => {
    const { calls } = renderBilling("/", { cyclesDelay: 1_500 });
    await waitFor(() => {
      for (const path of ["/v1/usage/records", "/v1/usage/summary", "/v1/usage/series"])
        expect(calls(path)).toHaveLength(1);
    });
    // The rows are on screen while the period's name is still on its way.
    expect(await screen.findByText("Eval 0")).toBeInTheDocument();
    expect(screen.getByTestId("billing-period")).not.toHaveTextContent(/\d/);
    await waitFor(
      () => expect(screen.getByTestId("billing-period")).toHaveTextContent("Feb 1, 2026 - Present"),
      {
        timeout: 5_000,
      },
    );
    // The cycles' answer names the period the usage was read for: nothing is read again.
    expect(calls("/v1/usage/records")).toHaveLength(1);
    expect(calls("/v1/usage/summary")).toHaveLength(1);
  });
});
