// A workspace page's budget card: an administrator sets the workspace's budget from there (the
// dialog is about that workspace only), sees it, and edits it; members see no budget at all.
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { WorkspaceShowPage } from "../../src/pages/workspaces/workspace-show-page";
import { budget, budgetsApi, WS, workspaceRows } from "./support/budgets-api";
import { findDialog } from "./support/dialogs";
import { server } from "./support/network";
import { api, renderPage } from "./support/render-page";

const workspaceApi = [
  http.get(api(`/v1/workspaces/${WS.alpha}`), () => HttpResponse.json(workspaceRows[0])),
  http.get(api(`/v1/workspaces/${WS.alpha}/members`), () => HttpResponse.json([])),
  http.get(api("/v1/accounts/organization/users"), () => HttpResponse.json([])),
];

const renderShow = (me: { is_admin: boolean }, budgets = budgetsApi([])) =>
  renderPage(<WorkspaceShowPage />, {
    route: "/workspace/:id",
    path: `/workspace/${WS.alpha}`,
    me,
    handlers: [...workspaceApi, ...budgets.handlers],
  });

describe("workspace budget card", () => {
  it("lets an administrator set this workspace's budget from its page", async () => {
    const user = userEvent.setup({ delay: null });
    const budgets = budgetsApi([
      budget({
        budget_uuid: "bbbbbbbb-0000-4000-8000-000000000005",
        workspace_uuid: WS.beta,
        workspace_name: "Beta",
      }),
    ]);
    renderShow({ is_admin: true }, budgets);

    expect(
      await screen.findByText("No budget for this workspace. Set one to be alerted as its spend grows."),
    ).toBeInTheDocument();
    await user.click(await screen.findByRole("button", { name: /Set Budget/ }));
    const form = within(await findDialog("Set Budget"));
    expect(form.getByText("Alpha")).toBeInTheDocument();
    expect(form.queryByRole("radio")).not.toBeInTheDocument();
    await user.type(form.getByLabelText("Monthly budget (USD)"), "100");
    await user.click(form.getByTitle("50").querySelector(".ant-select-selection-item-remove") as Element);
    await user.click(form.getByRole("switch", { name: "Hard limit" }));
    await user.click(form.getByRole("button", { name: "Save Budget" }));

    await waitFor(() => expect(budgets.calls).toHaveLength(1));
    expect(budgets.calls[0]?.body).toEqual({
      scope: "workspace",
      workspace_uuid: WS.alpha,
      amount: "100.00",
      thresholds: [80, 100],
      hard_limit: true,
    });
    const card = (await screen.findByText("$0.00 of $100.00")).closest(".ant-card") as HTMLElement;
    expect(within(card).getByText("Monthly Budget")).toBeInTheDocument();
    expect(within(card).getByText("Hard limit")).toBeInTheDocument();
    expect(within(card).getByText("Alerts at 80%, 100%")).toBeInTheDocument();
  });

  it("shows the workspace's budget, not another's, and edits it", async () => {
    const user = userEvent.setup({ delay: null });
    const budgets = budgetsApi([
      budget({ spent: "85.00", percent_used: 85, triggered_thresholds: [50, 80] }),
      budget({
        budget_uuid: "bbbbbbbb-0000-4000-8000-000000000005",
        workspace_uuid: WS.beta,
        workspace_name: "Beta",
        amount: "7.00",
      }),
    ]);
    renderShow({ is_admin: true }, budgets);
    const card = await screen.findByTestId(`budget-${budget().budget_uuid}`);
    expect(within(card).getByText("Monthly Budget")).toBeInTheDocument();
    expect(within(card).getByText("$85.00 of $100.00")).toBeInTheDocument();
    expect(within(card).getByText("Alerts sent this cycle: 50%, 80%")).toBeInTheDocument();
    expect(screen.queryByText(/\$7\.00/)).not.toBeInTheDocument();

    await user.click(await within(card).findByRole("button", { name: "Edit Alpha budget" }));
    const form = within(await findDialog("Edit Budget"));
    await user.clear(form.getByLabelText("Monthly budget (USD)"));
    await user.type(form.getByLabelText("Monthly budget (USD)"), "200");
    await user.click(form.getByRole("button", { name: "Update Budget" }));
    await waitFor(() => expect(budgets.calls).toHaveLength(1));
    expect(budgets.calls[0]).toMatchObject({
      method: "PATCH",
      body: { amount: "200.00", thresholds: [50, 80, 100] },
    });
    expect(await within(card).findByText("$85.00 of $200.00")).toBeInTheDocument();
  });

  it("shows members no budget and does not ask for one", async () => {
    const asked: string[] = [];
    server.events.on("request:start", ({ request }) => {
      asked.push(new URL(request.url).pathname);
    });
    renderShow({ is_admin: false });
    expect(await screen.findByText("Workspace Members")).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screen.queryByText("Monthly Budget")).not.toBeInTheDocument();
    expect(asked.filter((path) => path.startsWith("/v1/budgets"))).toEqual([]);
  });
});
