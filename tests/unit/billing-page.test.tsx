import { configure, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ConfigProvider } from "antd";
import { createMemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { App } from "../../src/App";
import { ThemeShell } from "../../src/components/theme-shell";
import { createServices } from "../../src/providers/create-services";
import { routes } from "../../src/routes";
import { API_URL, AUTH_URL, accountsMe, fakeAuthClient, fakeNavigator, jsonResponse } from "./support/fakes";

// The chart library needs a canvas; its lazy chunk is replaced by a marker of what it was given.
vi.mock("@ant-design/plots", () => ({
  Column: (props: { data: unknown[] }) => <div data-testid="column-chart">{props.data.length} bars</div>,
}));

configure({ asyncUtilTimeout: 10_000 });

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

const records = Array.from({ length: 25 }, (_, i) => ({
  usage_event_uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  date: new Date(Date.UTC(2026, 1, 25 - i, 10, 30)).toISOString(),
  name: i === 3 ? null : `Eval ${i}`,
  operation: i % 2 ? "scoring" : "generation",
  eval_type: i % 3 ? "image_safety" : "safety",
  created_by: "ann@acme.test",
  quantity: i + 1,
  unit_price: "0.0125",
  cost: (0.0125 * (i + 1)).toFixed(4),
  eval_uuid: null,
  eval_run_uuid: null,
  workspace_uuid: WS.research,
  workspace_name: "Safety Research",
  notes: null,
  price_rule_uuid: null,
  rule_metric: "eval",
  modality: "text",
  is_jailbreak: false,
  has_ground_truth: true,
}));

const summary = (cycle: string) => ({
  billing_cycle_uuid: cycle,
  data_as_of: "2026-02-20T09:15:00.000Z",
  totals: { events: 25, count: 325, cost: cycle === FEB ? "4.0625" : "0" },
  by_operation: [
    { operation: "generation", rule_metric: "eval", events: 13, count: 169, cost: "2.1125" },
    { operation: "scoring", rule_metric: "prompt", events: 12, count: 156, cost: "1.95" },
  ],
  by_workspace: [
    {
      workspace_uuid: WS.research,
      workspace_name: "Safety Research",
      events: 20,
      count: 300,
      cost: "3.0625",
    },
    { workspace_uuid: null, workspace_name: "No Workspace", events: 5, count: 25, cost: "1.00" },
  ],
  by_eval_type: [
    { eval_type: "image_safety", events: 16, count: 200, cost: "2.5" },
    { eval_type: "safety", events: 9, count: 125, cost: "1.5625" },
  ],
  filter_options: {
    eval_types: ["image_safety", "safety"],
    operations: ["generation", "scoring"],
    modalities: ["text"],
    workspaces: [],
  },
});

function productApi() {
  return vi.fn<typeof fetch>(async (input) => {
    const url = new URL(String(input));
    const q = url.searchParams;
    switch (url.pathname) {
      case "/v1/accounts/me":
        return jsonResponse(
          200,
          accountsMe({ is_admin: true, workspace: { workspace_uuid: WS.red, name: "Red Team" } }),
        );
      case "/v1/accounts/organization/billingcycles":
        return jsonResponse(200, cycles);
      case "/v1/workspaces/":
        return jsonResponse(200, [
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
      case "/v1/usage/summary":
        return jsonResponse(200, summary(q.get("billing_cycle_uuid") ?? FEB));
      case "/v1/usage/series":
        return jsonResponse(200, { billing_cycle_uuid: FEB, grouping: q.get("grouping"), buckets: [] });
      case "/v1/usage/records": {
        const page = Number(q.get("page"));
        const size = Number(q.get("page_size"));
        const rows = q.get("sort") === "cost" ? [...records].reverse() : records;
        return jsonResponse(200, {
          records: rows.slice((page - 1) * size, page * size),
          total: rows.length,
          page,
          page_size: size,
        });
      }
      default:
        return jsonResponse(404, { error: { code: "not_found", message: "Not found" } });
    }
  });
}

function renderBilling() {
  const fetchImpl = productApi();
  const services = createServices({
    config: { apiUrl: API_URL, authUrl: AUTH_URL, productName: "Eval Console" },
    client: fakeAuthClient(),
    navigator: fakeNavigator("http://console.test/"),
    fetchImpl,
  });
  const router = createMemoryRouter(routes, { initialEntries: ["/"] });
  render(
    <ThemeShell>
      <ConfigProvider theme={{ token: { motion: false } }}>
        <App services={services} router={router} />
      </ConfigProvider>
    </ThemeShell>,
  );
  const calls = (path: string) =>
    fetchImpl.mock.calls
      .map(([input]) => new URL(String(input)))
      .filter((url) => url.pathname === path)
      .map((url) => url.searchParams);
  return { fetchImpl, calls };
}

const tableSettled = () => waitFor(() => expect(document.querySelector(".ant-spin-blur")).toBeNull());

describe("Billing & Usage", { timeout: 60_000 }, () => {
  it("shows totals, the latest period, the summary and the first page of records", async () => {
    const user = userEvent.setup();
    const { calls } = renderBilling();
    expect(await screen.findByText("Billing & Usage", { selector: "h2" })).toBeInTheDocument();
    expect(await screen.findByTestId("billing-period")).toHaveTextContent("Feb 1, 2026 - Present");
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

    expect(await screen.findByText("Eval 0")).toBeInTheDocument();
    expect(screen.getByTestId("records-pagination")).toHaveTextContent("Page 1 of 3 (25 total records)");
    const missing = screen.getByText("Feb 22, 2026, 10:30 UTC").closest("tr") as HTMLElement;
    expect(within(missing).getByText("-")).toBeInTheDocument();
    expect(calls("/v1/usage/records")[0]?.get("sort")).toBe("-date");
    expect(calls("/v1/usage/records")[0]?.get("billing_cycle_uuid")).toBe(FEB);

    await tableSettled();
    const pager = within(screen.getByRole("navigation", { name: "Records pages" }));
    await user.click(pager.getByRole("button", { name: "Next page" }));
    expect(await screen.findByText("Eval 10")).toBeInTheDocument();
    expect(screen.getByTestId("records-pagination")).toHaveTextContent("Page 2 of 3 (25 total records)");
    await tableSettled();
    await user.click(pager.getByRole("button", { name: "Last page" }));
    expect(await screen.findByText("Page 3 of 3 (25 total records)")).toBeInTheDocument();

    // Sorting by Cost starts ascending on the first page.
    await tableSettled();
    await user.click(within(document.querySelector("thead") as HTMLElement).getByText("Cost"));
    await waitFor(() => expect(calls("/v1/usage/records").at(-1)?.get("sort")).toBe("cost"));
    expect(calls("/v1/usage/records").at(-1)?.get("page")).toBe("1");

    // Stepping back selects January; its summary is fetched with its id.
    await user.click(screen.getByLabelText("Previous billing period"));
    expect(screen.getByTestId("billing-period")).toHaveTextContent("Jan 1, 2026 - Feb 1, 2026");
    expect(screen.getByLabelText("Previous billing period")).toBeDisabled();
    await waitFor(() => expect(calls("/v1/usage/summary").at(-1)?.get("billing_cycle_uuid")).toBe(JAN));
    expect(await screen.findByText("No usage data available")).toBeInTheDocument();
  });

  it("filters every view, counts active filters and searches the records", async () => {
    // The checkbox drawn inside a menu item ignores the pointer; the item takes the click.
    const user = userEvent.setup({ pointerEventsCheck: 0 });
    const { calls } = renderBilling();
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
    await user.keyboard("{Escape}");
    expect(screen.getByLabelText("Eval Type: Image Safety")).toBeInTheDocument();
    const clear = await screen.findByText("Clear all (1)");

    await user.click(screen.getByLabelText("Workspace: All workspaces"));
    await user.click(inMenu(await screen.findAllByText("My workspace (Red Team)")));
    expect(await screen.findByLabelText("Workspace: Red Team")).toBeInTheDocument();
    await waitFor(() =>
      expect(calls("/v1/usage/summary").at(-1)?.getAll("workspace_uuid")).toEqual([WS.red]),
    );

    await user.click(clear);
    await waitFor(() => expect(screen.queryByText(/Clear all/)).not.toBeInTheDocument());
    await waitFor(() => expect(calls("/v1/usage/summary").at(-1)?.getAll("eval_type")).toEqual([]));

    await tableSettled();
    await user.type(screen.getByPlaceholderText("Search..."), "Eval 1");
    await waitFor(() => expect(calls("/v1/usage/records").at(-1)?.get("search")).toBe("Eval 1"));
    // The search applies to the table only; one request for the whole word.
    expect(calls("/v1/usage/records").filter((q) => q.get("search") === "Eval ")).toHaveLength(0);
    expect(calls("/v1/usage/summary").some((q) => q.has("search"))).toBe(false);
  });
});
