// The records table while a search is on its way: the pager says "Searching..." instead of the
// previous result's page count and total, and its buttons wait, until the search's first page is in.
import { configure, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ConfigProvider } from "antd";
import { createMemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";
import type { UsageSummary } from "../../contract/usage-schemas";
import { App } from "../../src/App";
import { ThemeShell } from "../../src/components/theme-shell";
import { createServices } from "../../src/providers/create-services";
import { routes } from "../../src/routes";
import { API_URL, AUTH_URL, accountsMe, fakeAuthClient, fakeNavigator, jsonResponse } from "./support/fakes";

vi.mock("@ant-design/plots", () => ({
  Column: (props: { data: unknown[] }) => <div data-testid="column-chart">{props.data.length} bars</div>,
}));

configure({ asyncUtilTimeout: 20_000 });

const CYCLE = "22222222-2222-4222-8222-222222222222";
const TOTAL = 26_014;

const record = (i: number) => ({
  usage_event_uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  date: new Date(Date.UTC(2026, 1, 25, 10, 30 - i)).toISOString(),
  name: `Eval ${i}`,
  operation: "scoring",
  eval_type: "safety",
  created_by: "ann@acme.test",
  quantity: 1,
  unit_price: "0.0125",
  cost: "0.0125",
  eval_uuid: null,
  eval_run_uuid: null,
  workspace_uuid: null,
  workspace_name: "Unknown Workspace",
  notes: null,
  price_rule_uuid: null,
  rule_metric: "eval",
  modality: "text",
  is_jailbreak: false,
  has_ground_truth: false,
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
  // The searched records call answers only when the test says so.
  let answerSearch: (() => void) | null = null;
  const fetchImpl = vi.fn<typeof fetch>(async (input) => {
    const url = new URL(String(input));
    const q = url.searchParams;
    switch (url.pathname) {
      case "/v1/accounts/me":
        return jsonResponse(200, accountsMe({ is_admin: true }));
      case "/v1/accounts/organization/billingcycles":
        return jsonResponse(200, [
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
        ]);
      case "/v1/workspaces/":
        return jsonResponse(200, []);
      case "/v1/usage/summary":
        return jsonResponse(200, summary);
      case "/v1/usage/series":
        return jsonResponse(200, { billing_cycle_uuid: CYCLE, grouping: q.get("grouping"), buckets: [] });
      case "/v1/usage/records": {
        const page = Number(q.get("page"));
        const size = Number(q.get("page_size"));
        if (q.get("search")) {
          await new Promise<void>((resolve) => {
            answerSearch = resolve;
          });
          return jsonResponse(200, { records: [record(1), record(10)], total: 2, page, page_size: size });
        }
        const rows = Array.from({ length: size }, (_, i) => record((page - 1) * size + i));
        return jsonResponse(200, { records: rows, total: TOTAL, page, page_size: size });
      }
      default:
        return jsonResponse(404, { error: { code: "not_found", message: "Not found" } });
    }
  });
  const services = createServices({
    config: { apiUrl: API_URL, authUrl: AUTH_URL, productName: "Eval Console" },
    client: fakeAuthClient(),
    navigator: fakeNavigator("http://console.test/"),
    fetchImpl,
  });
  render(
    <ThemeShell>
      <ConfigProvider theme={{ token: { motion: false } }}>
        <App services={services} router={createMemoryRouter(routes, { initialEntries: ["/"] })} />
      </ConfigProvider>
    </ThemeShell>,
  );
  const searchCalls = () =>
    fetchImpl.mock.calls.filter(([input]) => new URL(String(input)).searchParams.has("search")).length;
  return { searchCalls, answer: () => answerSearch?.() };
}

describe("Records search", { timeout: 60_000 }, () => {
  it("shows that it is searching, never the previous total, until the search's first page is in", async () => {
    const user = userEvent.setup();
    const { searchCalls, answer } = setup();
    const pager = await screen.findByText("Page 1 of 2,602 (26,014 total records)");
    expect(screen.getByLabelText("Next page")).toBeEnabled();

    await user.type(screen.getByPlaceholderText("Search..."), "Eval 1");
    // At once, while typing pauses and while the search request is pending.
    expect(pager).toHaveTextContent("Searching...");
    await waitFor(() => expect(searchCalls()).toBe(1));
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
