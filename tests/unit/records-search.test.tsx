// The records table while a search is on its way: the pager says "Searching..." instead of the
// previous result's page count and total, and its buttons wait, until the search's first page is in.
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import type { UsageSummary } from "../../contract/usage-schemas";
import { BillingPage } from "../../src/pages/billing/billing-page";
import { api, renderPage } from "./support/render-page";
import { usageRecord } from "./support/usage-record";

const CYCLE = "22222222-2222-4222-8222-222222222222";
const TOTAL = 26_014;

const record = (i: number) =>
  usageRecord({
    usage_event_uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    date: new Date(Date.UTC(2026, 1, 25, 10, 30 - i)).toISOString(),
    name: `Eval ${i}`,
    operation: "scoring",
    created_by: "ann@acme.test",
    quantity: 1,
    cost: "0.0125",
    workspace_name: "Unknown Workspace",
    modality: "text",
  });

const NONE = { events: 0, count: 0, cost: "0.00" };

const summary: UsageSummary = {
  billing_cycle_uuid: CYCLE,
  data_as_of: "2026-02-20T09:15:00.000Z",
  totals: { events: TOTAL, count: TOTAL, cost: "325.175" },
  adjustments: NONE,
  credits: NONE,
  charges: NONE,
  by_operation: [
    {
      operation: "scoring",
      rule_metric: "eval",
      events: TOTAL,
      count: TOTAL,
      cost: "325.175",
      adjustments: NONE,
    },
  ],
  by_workspace: [],
  by_eval_type: [{ eval_type: "safety", events: TOTAL, count: TOTAL, cost: "325.175", adjustments: NONE }],
  filter_options: { eval_types: ["safety"], operations: ["scoring"], modalities: ["text"], workspaces: [] },
};

function setup() {
  // Searched records calls answer only when the test says so (a slow machine may pause typing
  // long enough for a search of the first letters too: every one waits, and all are answered).
  const waiting: (() => void)[] = [];
  const searches: string[] = [];
  const handlers = [
    http.get(api("/v1/accounts/organization/billingcycles"), () =>
      HttpResponse.json([
        {
          billing_cycle_uuid: CYCLE,
          billing_cycle_start_date: "2026-02-01",
          billing_cycle_end_date: null,
          paid_amount_usd: "0",
          total_cost: "325.175",
          unattributed_cost: "0",
          workspace_groups: [],
          usage_breakdown: { usage_events: [] },
        },
      ]),
    ),
    http.get(api("/v1/workspaces/"), () => HttpResponse.json([])),
    http.get(api("/v1/usage/summary"), () => HttpResponse.json(summary)),
    http.get(api("/v1/usage/awaiting-pricing"), () =>
      HttpResponse.json({ events: 0, oldest_occurred_at: null }),
    ),
    http.get(api("/v1/usage/series"), ({ request }) =>
      HttpResponse.json({
        billing_cycle_uuid: CYCLE,
        grouping: new URL(request.url).searchParams.get("grouping"),
        buckets: [],
      }),
    ),
    http.get(api("/v1/usage/records"), async ({ request }) => {
      const q = new URL(request.url).searchParams;
      const page = Number(q.get("page"));
      const size = Number(q.get("page_size"));
      const search = q.get("search");
      if (search) {
        searches.push(search);
        await new Promise<void>((resolve) => waiting.push(resolve));
        return HttpResponse.json({ records: [record(1), record(10)], total: 2, page, page_size: size });
      }
      const rows = Array.from({ length: size }, (_, i) => record((page - 1) * size + i));
      return HttpResponse.json({ records: rows, total: TOTAL, page, page_size: size });
    }),
  ];
  renderPage(<BillingPage />, { me: { is_admin: true }, handlers });
  const answer = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  return { searches, answer };
}

describe("Records search", { timeout: 60_000 }, () => {
  it("shows that it is searching, never the previous total, until the search's first page is in", async () => {
    const user = userEvent.setup();
    const { searches, answer } = setup();
    const pager = await screen.findByText("Page 1 of 2,602 (26,014 total records)");
    expect(screen.getByLabelText("Next page")).toBeEnabled();

    await user.type(screen.getByPlaceholderText("Search..."), "Eval 1");
    // At once, while typing pauses and while the search request is pending.
    expect(pager).toHaveTextContent("Searching...");
    await waitFor(() => expect(searches.at(-1)).toBe("Eval 1"));
    expect(screen.getByTestId("records-pagination")).toHaveTextContent("Searching...");
    expect(screen.queryByText(/26,014 total records/)).not.toBeInTheDocument();
    expect(screen.getByLabelText("Next page")).toBeDisabled();
    expect(screen.getByLabelText("Last page")).toBeDisabled();

    answer();
    expect(await screen.findByText("Page 1 of 1 (2 total records)")).toBeInTheDocument();
    expect(screen.getByText("Eval 10")).toBeInTheDocument();
    expect(screen.queryByText("Searching...")).not.toBeInTheDocument();
  });
});
