// The budget alert banner in the console layout: what an administrator reads when budgets are
// past their thresholds, the link to Billing & Usage, its refresh after navigation, and that
// members neither see it nor cause the alerts to be asked for.
import { act, screen, waitFor, within } from "@testing-library/react";
import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import type { BudgetAlert } from "../../contract/budgets";
import { AppLayout } from "../../src/components/layout/app-layout";
import { server } from "./support/network";
import { api, apiError, renderPage } from "./support/render-page";

const alert = (over: Partial<BudgetAlert> = {}): BudgetAlert => ({
  budget_uuid: "bbbbbbbb-0000-4000-8000-000000000001",
  scope: "workspace",
  workspace_uuid: "aaaaaaaa-0000-4000-8000-000000000001",
  workspace_name: "Alpha",
  threshold: 80,
  state: "triggered",
  amount: "100.00",
  spent: "81.00",
  cycle_start: "2026-11-01T00:00:00.000Z",
  triggered_at: "2026-11-20T00:00:00.000Z",
  resolved_at: null,
  ...over,
});

function countAlertCalls() {
  let calls = 0;
  server.events.on("request:start", ({ request }) => {
    if (new URL(request.url).pathname === "/v1/budgets/alerts") calls += 1;
  });
  return () => calls;
}

const renderLayout = (me: { is_admin: boolean }, alerts: () => BudgetAlert[] | Response) =>
  renderPage(<AppLayout />, {
    // Any /account/… page is inside the layout, so a test can move between pages under it.
    route: "/account/:page",
    path: "/account/settings",
    me,
    outlet: <p>The page</p>,
    handlers: [
      http.get(api("/v1/budgets/alerts"), async () => {
        // The answer is what the API knew when asked; it arrives a moment later.
        const answer = alerts();
        await delay(50);
        return Array.isArray(answer) ? HttpResponse.json({ alerts: answer }) : answer;
      }),
    ],
  });

describe("budget alert banner", () => {
  it("tells an administrator which budgets are past which threshold, and links to Billing & Usage", async () => {
    renderLayout({ is_admin: true }, () => [
      alert(),
      alert({ threshold: 50 }),
      alert({
        budget_uuid: "bbbbbbbb-0000-4000-8000-000000000002",
        scope: "organization",
        workspace_uuid: null,
        workspace_name: null,
        threshold: 100,
        amount: "1500",
      }),
    ]);
    const banner = await screen.findByTestId("budget-alert-banner");
    expect(banner).toHaveTextContent(
      "Your organization has used 100% of its $1,500.00 monthly budget." +
        "Workspace Alpha has used 80% of its $100.00 monthly budget.",
    );
    expect(banner).not.toHaveTextContent("50%");
    expect(within(banner).getByRole("link", { name: "View Billing & Usage" })).toHaveAttribute(
      "href",
      "/#budgets",
    );
    expect(screen.getByText("The page")).toBeInTheDocument();
  });

  it("shows nothing while the alerts load or when there are none, and reads them again on a page change", async () => {
    const calls = countAlertCalls();
    let answer: () => BudgetAlert[] | Response = () => [];
    const view = renderLayout({ is_admin: true }, () => answer());
    expect(await screen.findByText("The page")).toBeInTheDocument();
    expect(screen.queryByTestId("budget-alert-banner")).not.toBeInTheDocument();
    await waitFor(() => expect(calls()).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screen.queryByTestId("budget-alert-banner")).not.toBeInTheDocument();

    // A threshold crossed meanwhile shows after the next page change, without a reload.
    answer = () => [alert()];
    await act(() => view.router.navigate("/account/other"));
    await waitFor(() => expect(calls()).toBe(2));
    expect(await screen.findByTestId("budget-alert-banner")).toHaveTextContent(
      "Workspace Alpha has used 80% of its $100.00 monthly budget.",
    );
  });

  it("hides an alert once it is resolved and the banner reads the alerts again", async () => {
    let alerts = [alert()];
    const view = renderLayout({ is_admin: true }, () => alerts);
    expect(await screen.findByTestId("budget-alert-banner")).toBeInTheDocument();
    alerts = [];
    await act(() => view.router.navigate("/account/other"));
    await waitFor(() => expect(screen.queryByTestId("budget-alert-banner")).not.toBeInTheDocument());
    expect(screen.getByText("The page")).toBeInTheDocument();
  });

  it("keeps quiet when the alerts cannot be read", async () => {
    renderLayout({ is_admin: true }, () => apiError(503, "unavailable", "Try again later."));
    expect(await screen.findByText("The page")).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screen.queryByTestId("budget-alert-banner")).not.toBeInTheDocument();
    expect(screen.queryByText("Try again later.")).not.toBeInTheDocument();
  });

  it("is not shown to members, whose console does not ask for alerts", async () => {
    const calls = countAlertCalls();
    renderLayout({ is_admin: false }, () => [alert()]);
    expect(await screen.findByText("The page")).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screen.queryByTestId("budget-alert-banner")).not.toBeInTheDocument();
    expect(calls()).toBe(0);
  });
});
