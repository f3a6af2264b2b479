// The Budgets section of Billing & Usage on a mocked product API: the budgets as cards (spent of
// amount, thresholds, hard limit), loading and empty states, the dialog's rules and the requests
// it sends, the API's refusals in its own words, and delete after confirmation.
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { BudgetsSection } from "../../src/components/budgets/budgets-section";
import { budget, budgetsApi, WS } from "./support/budgets-api";
import { findDialog } from "./support/dialogs";
import { api, apiError, renderPage } from "./support/render-page";

const admin = { is_admin: true };
const orgBudget = budget({
  budget_uuid: "bbbbbbbb-0000-4000-8000-000000000009",
  scope: "organization",
  workspace_uuid: null,
  workspace_name: null,
  amount: "1000.00",
  spent: "850.00",
  percent_used: 85,
  thresholds: [80, 100],
  triggered_thresholds: [80],
  hard_limit: true,
});

const noDialog = () => waitFor(() => expect(screen.queryAllByRole("dialog")).toHaveLength(0));
const owners = () => screen.queryAllByTestId("budget-owner");
const card = (name: string) =>
  owners()
    .find((o) => o.textContent === name)
    ?.closest(".ant-card") as HTMLElement;

describe("Budgets section", () => {
  it("shows a skeleton while loading, never $0.00, then the organization first and each workspace", async () => {
    const { handlers } = budgetsApi([budget(), orgBudget]);
    renderPage(<BudgetsSection />, {
      me: admin,
      handlers: [
        http.get(api("/v1/budgets"), async () => {
          await delay(150);
          return HttpResponse.json({ budgets: [budget(), orgBudget] });
        }),
        ...handlers,
      ],
    });
    expect(await screen.findByTestId("budgets-loading")).toBeInTheDocument();
    expect(screen.queryByText(/\$0\.00/)).not.toBeInTheDocument();

    await waitFor(() => expect(owners().map((o) => o.textContent)).toEqual(["Organization", "Alpha"]));
    expect(screen.queryByTestId("budgets-loading")).not.toBeInTheDocument();

    const org = within(card("Organization"));
    expect(org.getByTestId("budget-spent")).toHaveTextContent("$850.00 of $1,000.00");
    expect(org.getByText("85% used")).toBeInTheDocument();
    expect(org.getByText("Hard limit")).toBeInTheDocument();
    expect(org.getByTestId("budget-triggered")).toHaveTextContent("Alerts sent this cycle: 80%");
    expect(org.getByTestId("threshold-mark-80")).toHaveAttribute("data-triggered", "true");
    expect(org.getByTestId("threshold-mark-100")).toHaveAttribute("data-triggered", "false");
    expect(org.getByRole("progressbar", { name: "Budget used" })).toHaveAttribute(
      "aria-valuetext",
      "85% of the budget used",
    );

    const alpha = within(card("Alpha"));
    expect(alpha.getByTestId("budget-spent")).toHaveTextContent("$42.00 of $100.00");
    expect(alpha.queryByText("Hard limit")).not.toBeInTheDocument();
    expect(alpha.getByTestId("budget-triggered")).toHaveTextContent("Alerts at 50%, 80%, 100%");
  });

  it("invites to set a first budget, with 50/80/100 to start from, and creates a workspace budget", async () => {
    const user = userEvent.setup({ delay: null });
    const budgets = budgetsApi([]);
    renderPage(<BudgetsSection />, { me: admin, handlers: budgets.handlers });

    expect(await screen.findByText(/No budgets yet/)).toBeInTheDocument();
    await user.click(await screen.findByRole("button", { name: /Set a Budget/ }));
    const form = within(await findDialog("Set Budget"));
    for (const t of ["50", "80", "100"]) expect(form.getByTitle(t)).toBeInTheDocument();
    expect(form.getByRole("switch", { name: "Hard limit" })).not.toBeChecked();

    await user.click(form.getByRole("radio", { name: "One workspace" }));
    await user.click(form.getByRole("combobox", { name: "Workspace" }));
    await user.click(await screen.findByText("Beta", { selector: ".ant-select-item-option-content" }));
    await user.type(form.getByLabelText("Monthly budget (USD)"), "250.5");
    // 50% goes, 90% comes: thresholds are tags.
    await user.click(form.getByTitle("50").querySelector(".ant-select-selection-item-remove") as Element);
    await user.type(form.getByRole("combobox", { name: "Alert thresholds (% of the budget)" }), "90{enter}");
    await user.click(form.getByRole("switch", { name: "Hard limit" }));
    await user.click(form.getByRole("button", { name: "Save Budget" }));

    await waitFor(() => expect(budgets.calls).toHaveLength(1));
    expect(budgets.calls[0]).toEqual({
      method: "POST",
      path: "/v1/budgets",
      body: {
        scope: "workspace",
        workspace_uuid: WS.beta,
        amount: "250.50",
        thresholds: [80, 90, 100],
        hard_limit: true,
      },
    });
    await noDialog();
    expect(await screen.findByText("$0.00 of $250.50")).toBeInTheDocument();
  });

  it("refuses a bad amount or bad thresholds in the dialog without calling the API", async () => {
    const user = userEvent.setup({ delay: null });
    const budgets = budgetsApi([]);
    renderPage(<BudgetsSection />, { me: admin, handlers: budgets.handlers });
    await user.click(await screen.findByRole("button", { name: /Set a Budget/ }));
    const form = within(await findDialog("Set Budget"));
    const save = form.getByRole("button", { name: "Save Budget" });

    await user.click(save);
    expect(await form.findByText("Enter the monthly budget in USD")).toBeInTheDocument();
    await user.type(form.getByLabelText("Monthly budget (USD)"), "12.345");
    expect(await form.findByText("Enter an amount like 100 or 250.50")).toBeInTheDocument();
    await user.clear(form.getByLabelText("Monthly budget (USD)"));
    await user.type(form.getByLabelText("Monthly budget (USD)"), "0");
    expect(await form.findByText("The budget must be more than $0.00")).toBeInTheDocument();
    await user.clear(form.getByLabelText("Monthly budget (USD)"));
    await user.type(form.getByLabelText("Monthly budget (USD)"), "100");
    await waitFor(() => expect(form.queryByText(/budget must be|Enter an amount/)).not.toBeInTheDocument());

    const thresholds = form.getByRole("combobox", { name: "Alert thresholds (% of the budget)" });
    await user.type(thresholds, "lots,");
    expect(await form.findByText('"lots" is not a whole percent')).toBeInTheDocument();
    await user.click(form.getByTitle("lots").querySelector(".ant-select-selection-item-remove") as Element);
    await user.type(thresholds, "2000,");
    expect(await form.findByText("Thresholds are between 1% and 1000%")).toBeInTheDocument();
    await user.click(form.getByTitle("2000").querySelector(".ant-select-selection-item-remove") as Element);
    for (const t of ["50", "80", "100"]) {
      await user.click(form.getByTitle(t).querySelector(".ant-select-selection-item-remove") as Element);
    }
    expect(await form.findByText("Add at least one alert threshold")).toBeInTheDocument();

    await user.click(save);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(budgets.calls).toEqual([]);
    expect(await findDialog("Set Budget")).toBeVisible();
  });

  it("keeps the dialog open with the API's own message when it refuses", async () => {
    const user = userEvent.setup({ delay: null });
    const budgets = budgetsApi([budget()]);
    renderPage(<BudgetsSection />, { me: admin, handlers: budgets.handlers });
    await user.click(await screen.findByRole("button", { name: /Add Budget/ }));
    const form = within(await findDialog("Set Budget"));
    // The organization has no budget yet, so the dialog starts there; Alpha already has one.
    expect(form.getByRole("radio", { name: "Organization" })).toBeChecked();
    await user.click(form.getByRole("radio", { name: "One workspace" }));
    await user.click(form.getByRole("combobox", { name: "Workspace" }));
    const alpha = await screen.findByText("Alpha", { selector: ".ant-select-item-option-content" });
    expect(alpha.closest(".ant-select-item-option")).toHaveClass("ant-select-item-option-disabled");
    await user.click(screen.getByText("Beta", { selector: ".ant-select-item-option-content" }));
    await user.type(form.getByLabelText("Monthly budget (USD)"), "75");

    budgets.refuse(409, "conflict", "Workspace Beta already has a budget.");
    await user.click(form.getByRole("button", { name: "Save Budget" }));
    const message = await form.findByRole("alert");
    expect(message).toHaveTextContent("The budget could not be saved.");
    expect(message).toHaveTextContent("Workspace Beta already has a budget.");
    expect(await findDialog("Set Budget")).toBeVisible();

    // Corrected and sent again, the old message goes and the budget appears.
    await user.click(form.getByRole("button", { name: "Save Budget" }));
    await noDialog();
    expect(budgets.calls).toHaveLength(2);
    expect(await screen.findByText("$0.00 of $75.00")).toBeInTheDocument();
  });

  it("edits a budget's amount, thresholds and hard limit with PATCH, its owner fixed", async () => {
    const user = userEvent.setup({ delay: null });
    const budgets = budgetsApi([budget()]);
    renderPage(<BudgetsSection />, { me: admin, handlers: budgets.handlers });
    await user.click(await screen.findByRole("button", { name: "Edit Alpha budget" }));
    const form = within(await findDialog("Edit Budget"));
    expect(form.getByLabelText("Monthly budget (USD)")).toHaveValue("100.00");
    expect(form.getByRole("radio", { name: "One workspace" })).toBeDisabled();

    await user.clear(form.getByLabelText("Monthly budget (USD)"));
    await user.type(form.getByLabelText("Monthly budget (USD)"), "40");
    await user.click(form.getByTitle("50").querySelector(".ant-select-selection-item-remove") as Element);
    await user.click(form.getByRole("switch", { name: "Hard limit" }));
    await user.click(form.getByRole("button", { name: "Update Budget" }));

    await waitFor(() => expect(budgets.calls).toHaveLength(1));
    expect(budgets.calls[0]).toEqual({
      method: "PATCH",
      path: `/v1/budgets/${budget().budget_uuid}`,
      body: { amount: "40.00", thresholds: [80, 100], hard_limit: true },
    });
    expect(await screen.findByText("$42.00 of $40.00")).toBeInTheDocument();
    expect(within(card("Alpha")).getByText("Hard limit")).toBeInTheDocument();
  });

  it("deletes a budget only after confirmation", async () => {
    const user = userEvent.setup({ delay: null });
    const budgets = budgetsApi([budget(), orgBudget]);
    renderPage(<BudgetsSection />, { me: admin, handlers: budgets.handlers });
    await user.click(await screen.findByRole("button", { name: "Delete Alpha budget" }));
    expect(await screen.findByText(/Delete the Alpha budget\?/)).toBeInTheDocument();
    expect(budgets.calls).toEqual([]);
    await user.click(screen.getByRole("button", { name: "Delete" }));
    await waitFor(() =>
      expect(budgets.calls).toEqual([
        { method: "DELETE", path: `/v1/budgets/${budget().budget_uuid}`, body: null },
      ]),
    );
    await waitFor(() => expect(screen.queryByText("$42.00 of $100.00")).not.toBeInTheDocument());
    expect(screen.getByText("$850.00 of $1,000.00")).toBeInTheDocument();
  });

  it("says why the budgets could not be loaded, and retries", async () => {
    const user = userEvent.setup({ delay: null });
    let fail = true;
    renderPage(<BudgetsSection />, {
      me: admin,
      handlers: [
        http.get(api("/v1/budgets"), () =>
          fail
            ? apiError(503, "unavailable", "The database is not answering.")
            : HttpResponse.json({ budgets: [budget()] }),
        ),
      ],
    });
    expect(await screen.findByText("Budgets could not be loaded.")).toBeInTheDocument();
    expect(screen.getByText("The database is not answering.")).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("$42.00 of $100.00")).toBeInTheDocument();
  });
});
