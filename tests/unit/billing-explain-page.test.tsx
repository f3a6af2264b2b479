// "Explain this charge" on the network as the product API answers it (msw): opening it from a
// button, the skeleton while the first answer loads (never a zero), each level's total, lines and
// parts with the footer's sum, drilling down by click and by keyboard, the breadcrumb back up,
// deep links, pages of parts, and an error with Retry.
import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import type { ExplainLine, ExplainNode, ExplainPart, UsageExplain } from "../../contract/usage-explain";
import { TOP } from "../../src/lib/billing/explain";
import { ExplainDrawer } from "../../src/pages/billing/explain-drawer";
import { useBillingAddress, useBillingAddressWrite } from "../../src/pages/billing/use-billing-address";
import { useExplainState } from "../../src/pages/billing/use-explain-state";
import { api, apiError, renderPage } from "./support/render-page";

const CYCLE = {
  billing_cycle_uuid: "c0000000-0000-4000-8000-000000000001",
  billing_cycle_start_date: "2026-02-01",
  billing_cycle_end_date: null,
};
const WS = "0c5e0000-0000-4000-8000-000000000001";
const RULE = "9f1d2c3b-0000-4000-8000-000000000003";
const EV = "e0000000-0000-4000-8000-000000000001";

const rule = (quantity: number, price: string, cost: string, version = 1): ExplainLine => ({
  kind: "rule",
  price_rule_uuid: RULE,
  price_rule_version: version,
  unit_price: price,
  quantity,
  events: quantity,
  cost,
  notes: null,
  usage_event_uuid: null,
  occurred_at: null,
});
const credit: ExplainLine = {
  ...rule(1, "0.0125", "-300.00"),
  kind: "adjustment",
  notes: "Credit: volume discount",
  usage_event_uuid: EV,
  occurred_at: "2026-02-03T12:00:00.000Z",
};
const part = (label: string, cost: string, lines: ExplainLine[], node: ExplainNode | null): ExplainPart => ({
  label,
  description: null,
  node,
  events: 3,
  cost,
  occurred_at: null,
  lines,
});
const groupNode: ExplainNode = { ...TOP, level: "group", group: "Research" };
const runNode: ExplainNode = { ...TOP, level: "eval_run", workspace_uuid: WS, eval_run_uuid: "run-7" };

const base = (over: Partial<UsageExplain>): UsageExplain => ({
  billing_cycle_uuid: CYCLE.billing_cycle_uuid,
  node: TOP,
  label: "Total Cost",
  path: [{ label: "Total Cost", node: TOP }],
  total: "0.00",
  events: 0,
  lines: [],
  parts_level: "group",
  parts: [],
  parts_count: 0,
  earlier: { parts: 0, cost: "0.00" },
  later: { parts: 0, cost: "0.00" },
  page: 1,
  page_size: 50,
  ...over,
});

/** The answers by level; every request is kept. */
function explainApi({ firstDelay = 0, fail = false } = {}) {
  const seen: URLSearchParams[] = [];
  let failing = fail;
  const handler = http.get(api("/v1/usage/explain"), async ({ request }) => {
    const q = new URL(request.url).searchParams;
    seen.push(q);
    if (seen.length === 1) await delay(firstDelay);
    if (failing)
      return apiError(404, "not_found", "No usage of that eval run in this workspace and billing cycle.");
    const level = q.get("level");
    if (level === "group")
      return HttpResponse.json(
        base({
          node: groupNode,
          label: "Research",
          path: [
            { label: "Total Cost", node: TOP },
            { label: "Research", node: groupNode },
          ],
          total: "15.05",
          events: 1204,
          lines: [rule(1204, "0.0125", "15.05")],
          parts_level: "workspace",
          parts: [part("Safety Research", "15.05", [rule(1204, "0.0125", "15.05")], null)],
          parts_count: 1,
        }),
      );
    if (level === "eval_run") {
      const page = Number(q.get("page") ?? "1");
      return HttpResponse.json(
        base({
          node: runNode,
          label: "run-7",
          path: [
            { label: "Total Cost", node: TOP },
            { label: "Research", node: groupNode },
            { label: "Safety Research", node: { ...TOP, level: "workspace", workspace_uuid: WS } },
            { label: "run-7", node: runNode },
          ],
          total: "0.0375",
          events: 3,
          lines: [rule(3, "0.0125", "0.0375")],
          parts_level: "event",
          parts: [
            {
              ...part("Harmful content screen", "0.0125", [rule(1, "0.0125", "0.0125")], null),
              occurred_at: "2026-02-02T09:00:00.000Z",
            },
          ],
          parts_count: 3,
          earlier: { parts: page - 1, cost: page === 1 ? "0.00" : "0.0125" },
          later: { parts: 3 - page, cost: page === 1 ? "0.025" : "0.0125" },
          page,
          page_size: 1,
        }),
      );
    }
    return HttpResponse.json(
      base({
        total: "-284.95",
        events: 1205,
        lines: [rule(1204, "0.0125", "15.05"), credit],
        parts: [
          part("Research", "15.05", [rule(1204, "0.0125", "15.05")], groupNode),
          part("Other", "-300.00", [credit], { ...TOP, level: "group", group: "default" }),
        ],
        parts_count: 2,
      }),
    );
  });
  return {
    handler,
    seen,
    recover: () => {
      failing = false;
    },
  };
}

// The drawer as the page holds it: in the page's one address layer, written with a records table
// that stays on its first page.
const TABLE = { currentPage: 1, pageSize: 50, sorters: [], filters: [] };
function Harness() {
  const address = useBillingAddress();
  useBillingAddressWrite(address, TABLE);
  const explain = useExplainState(address);
  return (
    <>
      <button type="button" onClick={explain.open}>
        Explain this charge
      </button>
      <button type="button" onClick={() => address.setView((was) => ({ ...was, grouping: "weekly" }))}>
        Weekly
      </button>
      <ExplainDrawer cycle={CYCLE} state={explain} />
    </>
  );
}

const drawer = () => screen.getByRole("dialog");
/** An address without the records table's parameters (which the page writes beside the drawer's). */
const withoutTable = (location: string) => {
  const [path, query = ""] = location.split("?");
  const kept = [...new URLSearchParams(query)].filter(
    ([key]) => !/^(currentPage|pageSize|sorters|filters)\b/.test(key),
  );
  const search = new URLSearchParams(kept).toString();
  return search ? `${path}?${search}` : path;
};

describe("Explain this charge", () => {
  it("opens on the total: a skeleton first, then the lines, the parts and their sum", async () => {
    const network = explainApi({ firstDelay: 300 });
    const view = renderPage(<Harness />, { handlers: [network.handler] });
    await userEvent.click(await screen.findByRole("button", { name: "Explain this charge" }));
    expect(await screen.findByTestId("explain-loading")).toBeInTheDocument();
    expect(within(drawer()).queryByText("$0.00")).toBeNull();
    expect(await screen.findByTestId("explain-total")).toHaveTextContent("-$284.95");
    expect(withoutTable(view.location())).toBe("/?explain=cycle");
    expect(network.seen[0]?.get("billing_cycle_uuid")).toBe(CYCLE.billing_cycle_uuid);
    const arithmetic = within(drawer())
      .getAllByTestId("explain-arithmetic")
      .map((e) => e.textContent);
    expect(arithmetic).toContain("1,204 × $0.0125 = $15.05");
    expect(within(drawer()).getAllByText("Credit: volume discount · Feb 3, 2026").length).toBeGreaterThan(0);
    const costs = within(drawer())
      .getAllByTestId("explain-part-cost")
      .map((e) => e.textContent);
    expect(costs).toEqual(["$15.05", "-$300.00"]);
    expect(screen.getByTestId("explain-parts-sum")).toHaveTextContent("-$284.95");
    expect(within(drawer()).getByText("Sum of the 2 parts = Total Cost")).toBeInTheDocument();
  });

  it("drills down by click and by keyboard, and comes back up through the breadcrumb", async () => {
    const network = explainApi();
    const view = renderPage(<Harness />, { handlers: [network.handler] });
    await userEvent.click(await screen.findByRole("button", { name: "Explain this charge" }));
    await screen.findByTestId("explain-parts-sum");
    const research = within(drawer()).getByRole("button", { name: "Research" });
    research.focus();
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(screen.getByTestId("explain-label")).toHaveTextContent("Research"));
    expect(withoutTable(view.location())).toBe("/?explain=group&explain_group=Research");
    expect(network.seen.at(-1)?.get("level")).toBe("group");
    // Safety Research opens nothing further in this answer (no node): plain text.
    expect(within(drawer()).queryByRole("button", { name: "Safety Research" })).toBeNull();
    await userEvent.click(within(drawer()).getByRole("button", { name: "Total Cost" }));
    await waitFor(() => expect(screen.getByTestId("explain-label")).toHaveTextContent("Total Cost"));
    expect(withoutTable(view.location())).toBe("/?explain=cycle");
    // A click anywhere on a row goes down too.
    await userEvent.click(
      within(drawer()).getByText("-$300.00", { selector: "[data-testid=explain-part-cost]" }),
    );
    await waitFor(() => expect(withoutTable(view.location())).toBe("/?explain=group&explain_group=default"));
  });

  it("writes the drawer and the page's view together: a change right after opening keeps both", async () => {
    const network = explainApi();
    const view = renderPage(<Harness />, { handlers: [network.handler], path: "/?utm=mail" });
    // Two changes in one go, before the router shows the first: neither undoes the other.
    const explainButton = await screen.findByRole("button", { name: "Explain this charge" });
    act(() => {
      explainButton.click();
      screen.getByRole("button", { name: "Weekly" }).click();
    });
    await waitFor(() =>
      expect(withoutTable(view.location())).toBe("/?utm=mail&grouping=weekly&explain=cycle"),
    );
    await screen.findByTestId("explain-parts-sum");
    await userEvent.click(within(drawer()).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(withoutTable(view.location())).toBe("/?utm=mail&grouping=weekly"));
  });

  it("replaces the address as it opens and moves, so Back leaves the page", async () => {
    const network = explainApi();
    const view = renderPage(<Harness />, { handlers: [network.handler] });
    // The page reached from another one, as from the sider.
    await act(() => view.router.navigate("/elsewhere"));
    await act(() => view.router.navigate("/"));
    await userEvent.click(await screen.findByRole("button", { name: "Explain this charge" }));
    await userEvent.click(await within(drawer()).findByRole("button", { name: "Research" }));
    await waitFor(() => expect(withoutTable(view.location())).toBe("/?explain=group&explain_group=Research"));
    await act(() => view.router.navigate(-1));
    expect(view.location()).toBe("/elsewhere");
  });

  it("opens a deep link's node, with the parts on other pages as rows that add up", async () => {
    const network = explainApi();
    const view = renderPage(<Harness />, {
      handlers: [network.handler],
      path: `/?utm=mail&explain=eval_run&explain_workspace=${WS}&explain_run=run-7`,
    });
    expect(await screen.findByTestId("explain-label")).toHaveTextContent("run-7");
    expect(network.seen[0]?.get("level")).toBe("eval_run");
    expect(network.seen[0]?.get("workspace_uuid")).toBe(WS);
    expect(network.seen[0]?.get("eval_run_uuid")).toBe("run-7");
    const crumbs = within(drawer())
      .getAllByRole("button")
      .map((b) => b.textContent);
    expect(crumbs).toEqual(expect.arrayContaining(["Total Cost", "Research", "Safety Research"]));
    expect(
      within(drawer())
        .getAllByTestId("explain-part-cost")
        .map((e) => e.textContent),
    ).toEqual(["$0.0125", "$0.025"]);
    expect(screen.getByTestId("explain-parts-sum")).toHaveTextContent("$0.0375");
    await userEvent.click(within(drawer()).getByRole("button", { name: "2 events on later pages" }));
    await waitFor(() => expect(withoutTable(view.location())).toContain("explain_page=2"));
    expect(withoutTable(view.location())).toContain("utm=mail");
    await waitFor(() =>
      expect(
        within(drawer())
          .getAllByTestId("explain-part-cost")
          .map((e) => e.textContent),
      ).toEqual(["$0.0125", "$0.0125", "$0.0125"]),
    );
    await userEvent.click(within(drawer()).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(withoutTable(view.location())).toBe("/?utm=mail"));
  });

  it("keeps the row for later pages on a full page of parts, and pages with the pager below", async () => {
    const parts = Array.from({ length: 50 }, (_, i) => part(`Workspace ${i + 1}`, "1.00", [], null));
    const full = http.get(api("/v1/usage/explain"), ({ request }) => {
      const page = Number(new URL(request.url).searchParams.get("page") ?? "1");
      return HttpResponse.json(
        base({
          node: groupNode,
          label: "Research",
          path: [
            { label: "Total Cost", node: TOP },
            { label: "Research", node: groupNode },
          ],
          total: "60.50",
          parts_level: "workspace",
          parts: page === 1 ? parts : parts.slice(0, 10),
          parts_count: 60,
          earlier: page === 1 ? { parts: 0, cost: "0.00" } : { parts: 50, cost: "50.00" },
          later: page === 1 ? { parts: 10, cost: "10.50" } : { parts: 0, cost: "0.00" },
          page,
        }),
      );
    });
    const view = renderPage(<Harness />, {
      handlers: [full],
      path: "/?explain=group&explain_group=Research",
    });
    await screen.findByTestId("explain-parts-sum");
    const costs = within(drawer()).getAllByTestId("explain-part-cost");
    expect(costs).toHaveLength(51);
    expect(costs.at(-1)).toHaveTextContent("$10.50");
    expect(within(drawer()).getByText("10 workspaces on later pages")).toBeInTheDocument();
    expect(screen.getByTestId("explain-parts-sum")).toHaveTextContent("$60.50");
    await userEvent.click(within(drawer()).getByTitle("2"));
    await waitFor(() => expect(withoutTable(view.location())).toContain("explain_page=2"));
    expect(await within(drawer()).findByText("50 workspaces on earlier pages")).toBeInTheDocument();
    expect(within(drawer()).getAllByTestId("explain-part-cost")).toHaveLength(11);
  });

  it("says when the answer could not be read, and reads it again on Retry", async () => {
    const network = explainApi({ fail: true });
    renderPage(<Harness />, { handlers: [network.handler], path: "/?explain=cycle" });
    expect(await screen.findByText("This part of the bill could not be explained.")).toBeInTheDocument();
    expect(screen.getByText(/No usage of that eval run/)).toBeInTheDocument();
    network.recover();
    await userEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(await screen.findByTestId("explain-total")).toHaveTextContent("-$284.95");
  });
});
