import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import type { EvalRunDetail, EvalRunList } from "../../contract/eval-runs";
import { EventDetails } from "../../src/pages/billing/event-details";
import { EvalRunShowPage } from "../../src/pages/eval-runs/eval-run-show-page";
import { EvalRunsListPage } from "../../src/pages/eval-runs/eval-runs-list-page";
import { evalRuns as resource } from "../../src/resources/eval-runs";
import { api, apiError, renderPage, server } from "./support/render-page";
import { usageRecord } from "./support/usage-record";

const CYCLE = "0d6b3f4e-8c4b-4c1e-9a55-2f0a0f1b0c01";
const OLD_CYCLE = "0d6b3f4e-8c4b-4c1e-9a55-2f0a0f1b0c00";
const WS = "5b1d1c1e-0000-4000-8000-000000000001";

type EvalRunRow = EvalRunList["eval_runs"][number];

const run = (i: number, over: Partial<EvalRunRow> = {}): EvalRunRow => ({
  eval_run_uuid: `run-${i}`,
  eval_name: `Eval ${i}`,
  eval_uuid: `eval-${i}`,
  eval_type: "safety",
  workspace_uuid: WS,
  workspace_name: "Safety Research",
  started_by: null,
  started_at: `2026-11-${String(10 + (i % 10)).padStart(2, "0")}T08:00:00.000Z`,
  last_event_at: `2026-11-${String(10 + (i % 10)).padStart(2, "0")}T09:00:00.000Z`,
  events: 10 + i,
  quantity: 20 + i,
  cost: `${i}.2345`,
  outcomes: null,
  pass_rate: null,
  cost_per_passed_case: null,
  cost_by_role: { generation: `${i}.2345`, scoring: "0.00" },
  ...over,
});
const RUNS = Array.from({ length: 12 }, (_, i) => run(i + 1));

function seen(path: string) {
  const queries: URLSearchParams[] = [];
  server.events.on("request:start", ({ request }) => {
    const url = new URL(request.url);
    if (url.pathname === path) queries.push(url.searchParams);
  });
  return queries;
}

const common = [
  http.get(api("/v1/accounts/organization/billingcycles"), () =>
    HttpResponse.json([
      {
        billing_cycle_uuid: OLD_CYCLE,
        billing_cycle_start_date: "2026-10-01",
        billing_cycle_end_date: "2026-11-01",
        paid_amount_usd: "0.00",
        workspace_groups: [],
        usage_breakdown: { usage_events: [] },
      },
      {
        billing_cycle_uuid: CYCLE,
        billing_cycle_start_date: "2026-11-01",
        billing_cycle_end_date: null,
        paid_amount_usd: "0.00",
        workspace_groups: [],
        usage_breakdown: { usage_events: [] },
      },
    ]),
  ),
  http.get(api("/v1/workspaces/"), () =>
    HttpResponse.json([
      {
        workspace_uuid: WS,
        name: "Safety Research",
        organization_uuid: "org",
        organization_name: "Acme",
        member_count: 2,
        created_at: "2026-01-01T00:00:00.000Z",
        deleted_at: null,
      },
    ]),
  ),
];

const listAnswer = http.get(api("/v1/eval-runs"), ({ request }) => {
  const q = new URL(request.url).searchParams;
  const search = q.get("search") ?? "";
  const rows = RUNS.filter(
    (r) => !search || r.eval_run_uuid.includes(search) || r.eval_name?.includes(search),
  );
  const page = Number(q.get("page") ?? 1);
  const size = Number(q.get("page_size") ?? 10);
  return HttpResponse.json({
    eval_runs: rows.slice((page - 1) * size, page * size),
    total: rows.length,
    page,
    page_size: size,
    billing_cycle_uuid: q.get("billing_cycle_uuid") ?? CYCLE,
  });
});

describe("Eval Runs list page", () => {
  it("lists runs newest first with workspace, events and cost as money, and pages on the server", async () => {
    const queries = seen("/v1/eval-runs");
    renderPage(<EvalRunsListPage />, { route: resource.list as string, handlers: [...common, listAnswer] });
    expect(await screen.findByRole("heading", { name: "Eval Runs" })).toBeInTheDocument();
    const row = (await screen.findByText("run-1")).closest("tr") as HTMLElement;
    expect(within(row).getByText("Eval 1")).toBeInTheDocument();
    expect(within(row).getByText("Safety Research")).toBeInTheDocument();
    expect(within(row).getByText("$1.23")).toHaveAttribute("title", "$1.2345");
    expect(within(row).getByText("11")).toBeInTheDocument();
    expect(screen.getByText("12 runs")).toBeInTheDocument();
    expect(queries[0]?.get("sort")).toBe("-started_at");
    expect(queries[0]?.get("page_size")).toBe("10");
    // The run id opens the run's page.
    expect(within(row).getByRole("link")).toHaveAttribute("href", "/eval-runs/run-1");

    await userEvent.click(screen.getByTitle("2"));
    expect(await screen.findByText("run-11")).toBeInTheDocument();
    expect(queries.at(-1)?.get("page")).toBe("2");
  });

  it("shows each run's pass rate and cost per passed case, sorts by them on the server, and compares the runs chosen", async () => {
    const queries = seen("/v1/eval-runs");
    const bought = {
      outcomes: { passed: 7, failed: 2, errored: 1 },
      pass_rate: "0.700000",
      cost_per_passed_case: "0.195988",
    };
    const answer = http.get(api("/v1/eval-runs"), () =>
      HttpResponse.json({
        eval_runs: [run(1, bought), run(2), run(3)],
        total: 3,
        page: 1,
        page_size: 10,
        billing_cycle_uuid: CYCLE,
      }),
    );
    const view = renderPage(<EvalRunsListPage />, {
      route: resource.list as string,
      handlers: [...common, answer],
    });
    const row = (await screen.findByText("run-1")).closest("tr") as HTMLElement;
    expect(within(row).getByText("70.0%")).toHaveAttribute("title", "0.700000");
    expect(within(row).getByText("$0.195988")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("columnheader", { name: /Pass Rate/ }));
    await waitFor(() => expect(queries.at(-1)?.get("sort")).toMatch(/^-?pass_rate$/));
    await userEvent.click(screen.getByRole("columnheader", { name: /Cost per Passed Case/ }));
    await waitFor(() => expect(queries.at(-1)?.get("sort")).toMatch(/^-?cost_per_passed_case$/));

    const compare = screen.getByTestId("eval-runs-compare");
    expect(compare).toBeDisabled();
    await userEvent.click(screen.getByLabelText("Choose run-3 to compare"));
    expect(compare).toBeDisabled();
    await userEvent.click(screen.getByLabelText("Choose run-1 to compare"));
    expect(compare).toBeEnabled();
    await userEvent.click(compare);
    // The baseline is the run chosen first.
    await waitFor(() =>
      expect(view.location()).toBe("/eval-runs/compare?eval_run_uuid=run-3&eval_run_uuid=run-1"),
    );
  });

  it("sorts by cost on the server, searches, and says when nothing matches", async () => {
    const queries = seen("/v1/eval-runs");
    renderPage(<EvalRunsListPage />, { route: resource.list as string, handlers: [...common, listAnswer] });
    await screen.findByText("run-1");
    await userEvent.click(screen.getByRole("columnheader", { name: /^Cost(?! per)/ }));
    await waitFor(() => expect(queries.at(-1)?.get("sort")).toMatch(/^-?cost$/));

    await userEvent.type(screen.getByLabelText("Search eval runs"), "nothing-like-this");
    expect(await screen.findByText('No eval runs match "nothing-like-this"')).toBeInTheDocument();
    expect(queries.at(-1)?.get("search")).toBe("nothing-like-this");
    expect(queries.at(-1)?.get("page")).toBe("1");
  });

  it("filters by billing period, and the run links carry the period", async () => {
    const queries = seen("/v1/eval-runs");
    renderPage(<EvalRunsListPage />, { route: resource.list as string, handlers: [...common, listAnswer] });
    await screen.findByText("run-1");
    await userEvent.click(screen.getByRole("combobox", { name: "Billing period" }));
    await userEvent.click(await screen.findByText("Oct 1, 2026 - Nov 1, 2026"));
    await waitFor(() => expect(queries.at(-1)?.get("billing_cycle_uuid")).toBe(OLD_CYCLE));
    const row = (await screen.findByText("run-1")).closest("tr") as HTMLElement;
    await waitFor(() =>
      expect(within(row).getByRole("link")).toHaveAttribute(
        "href",
        `/eval-runs/run-1?billing_cycle_uuid=${OLD_CYCLE}`,
      ),
    );
  });

  it("shows the API's error instead of an empty list", async () => {
    renderPage(<EvalRunsListPage />, {
      route: resource.list as string,
      handlers: [
        ...common,
        http.get(api("/v1/eval-runs"), () => apiError(503, "database_unavailable", "Down.")),
      ],
    });
    expect(await screen.findByText("The eval runs could not be loaded.")).toBeInTheDocument();
  });
});

const DETAIL: EvalRunDetail = {
  ...run(3, { eval_run_uuid: "run-3", eval_name: "Jailbreak Sweep", started_by: "admin@acme.test" }),
  reservation: null,
  events: 3,
  quantity: 6,
  cost: "1.3145",
  billing_cycle_uuid: CYCLE,
  operations: [
    { operation: "scoring", events: 2, quantity: 2, cost: "1.252" },
    { operation: "generation", events: 1, quantity: 4, cost: "0.0625" },
  ],
};

const record = (i: number, cost: string, operation: string) =>
  usageRecord({
    usage_event_uuid: `00000000-0000-4000-8000-00000000000${i}`,
    date: `2026-11-13T08:0${i}:00.000Z`,
    operation,
    quantity: 2,
    unit_price: "0.01",
    cost,
    eval_uuid: "eval-3",
    eval_run_uuid: "run-3",
    workspace_uuid: WS,
    workspace_name: "Safety Research",
  });

describe("Eval run page", () => {
  it("shows the run's figures, its cost per operation and its events from the records of the run", async () => {
    const recordQueries = seen("/v1/usage/records");
    renderPage(<EvalRunShowPage />, {
      route: resource.show as string,
      path: "/eval-runs/run-3",
      handlers: [
        http.get(api("/v1/eval-runs/run-3"), () => HttpResponse.json(DETAIL)),
        http.get(api("/v1/usage/records"), () =>
          HttpResponse.json({
            records: [
              record(1, "0.0625", "generation"),
              record(2, "0.002", "scoring"),
              record(3, "1.25", "scoring"),
            ],
            total: 3,
            page: 1,
            page_size: 10,
          }),
        ),
      ],
    });
    expect(await screen.findByRole("heading", { name: "Jailbreak Sweep" })).toBeInTheDocument();
    expect(screen.getByText("$1.31")).toBeInTheDocument();
    expect(screen.getByTestId("run-cost-exact")).toHaveTextContent("$1.3145 exact");
    expect(screen.getByText("admin@acme.test")).toBeInTheDocument();
    const scoring = screen.getByText("$1.252").closest("tr") as HTMLElement;
    expect(within(scoring).getByText("Scoring")).toBeInTheDocument();
    const events = screen.getByTestId("eval-run-events");
    await within(events).findByText("$1.25");
    expect(within(events).getByText("3 events")).toBeInTheDocument();
    expect(recordQueries[0]?.get("eval_run_uuid")).toBe("run-3");
    expect(recordQueries[0]?.get("billing_cycle_uuid")).toBe(CYCLE);
  });

  it("asks for the period it was opened from, and says when the run is not found", async () => {
    const queries = seen("/v1/eval-runs/gone");
    renderPage(<EvalRunShowPage />, {
      route: resource.show as string,
      path: `/eval-runs/gone?billing_cycle_uuid=${OLD_CYCLE}`,
      handlers: [
        http.get(api("/v1/eval-runs/gone"), () => apiError(404, "not_found", "Eval run not found.")),
      ],
    });
    expect(await screen.findByText("Eval run not found")).toBeInTheDocument();
    expect(queries[0]?.get("billing_cycle_uuid")).toBe(OLD_CYCLE);
    expect(screen.getByRole("link", { name: /Back to Eval Runs/ })).toHaveAttribute("href", "/eval-runs");
  });
});

describe("Usage event details", () => {
  it("links the event's run id to the run's page", async () => {
    renderPage(<EventDetails record={record(1, "0.0625", "generation")} />, { route: "/" });
    const link = await screen.findByRole("link", { name: "Open eval run run-3" });
    expect(link).toHaveAttribute("href", "/eval-runs/run-3");
  });
});
