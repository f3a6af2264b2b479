import { expect, type Page, test } from "@playwright/test";
import { signIn } from "./console";

// An eval run's page, opened from the Billing & Usage records table (the event details card's run
// id), reconciles with the records the dashboard shows for that run: as many events, and a cost
// that is the exact sum of theirs. Then the Eval Runs list finds the same run with the same cost.

/** "$1,234.5678" or "-$0.05" as micro-dollars, without floating point. */
function micros(text: string): bigint {
  const m = /^(-)?\$([\d,]+)(?:\.(\d+))?/.exec(text.trim());
  if (!m) throw new Error(`not money: ${text}`);
  const frac = (m[3] ?? "").padEnd(6, "0").slice(0, 6);
  const value = BigInt((m[2] ?? "0").replaceAll(",", "")) * 1_000_000n + BigInt(frac);
  return m[1] ? -value : value;
}

/** The Workspace column's filter button (Refine's FilterDropdown); "active" while it filters. */
const workspaceFilter = (page: Page) =>
  page.getByRole("columnheader", { name: /Workspace/ }).locator(".ant-table-filter-trigger");

/** Waits until no table on the page shows its loading spinner. */
async function settled(page: Page) {
  await expect(page.locator(".ant-spin-spinning")).toHaveCount(0);
}

test("a run opened from the records table reconciles with the records shown for it", async ({ page }) => {
  await signIn(page, "admin@acme.test", "/");
  const rows = page.locator(".ant-table-tbody tr.ant-table-row");
  await expect(rows.first()).toBeVisible();
  await settled(page);

  // An event's details card names its run and links to the run's page. The newest events may
  // have no run (credits, usage sent without one, e.g. by the browser tests run before this one),
  // so the first of the page's events that has one is taken.
  const card = page
    .locator(".ant-popover:not(.ant-popover-hidden)")
    .filter({ hasText: "Usage Event Details" });
  let run = "";
  for (let i = 0; i < (await rows.count()) && !run; i++) {
    await rows.nth(i).hover();
    await expect(card).toBeVisible();
    const open = card.getByRole("link", { name: /^Open eval run / });
    if (await open.count())
      run = ((await open.getAttribute("aria-label")) ?? "").replace("Open eval run ", "");
    await page.mouse.move(0, 0);
    await expect(card).toHaveCount(0);
  }
  expect(run, "one of the first page's events belongs to an eval run").not.toBe("");

  // The records the dashboard shows for that run: the records search by its id.
  await page.getByPlaceholder("Search...").fill(run);
  const pager = page.getByTestId("records-pagination");
  await expect(pager).toContainText("total records");
  await expect(pager).not.toContainText("Searching");
  const shown = Number(
    /\(([\d,]+) total records\)/.exec((await pager.textContent()) ?? "")?.[1]?.replaceAll(",", ""),
  );
  expect(shown).toBeGreaterThan(0);

  await rows.first().hover();
  await card.getByRole("link", { name: `Open eval run ${run}` }).click();
  await expect(page).toHaveURL(new RegExp(`/eval-runs/${run}(\\?|$)`));
  await expect(page.getByText("Cost per Operation")).toBeVisible();

  const exact = micros((await page.getByTestId("run-cost-exact").textContent()) ?? "");
  const events = page.getByTestId("eval-run-events");
  await expect(events.getByText(`${shown} event${shown === 1 ? "" : "s"}`)).toBeVisible();

  // Every page of the run's events: as many as the dashboard showed, costs adding up to the run's.
  let sum = 0n;
  let counted = 0;
  for (;;) {
    await settled(page);
    const costs = await events.getByTestId("event-cost").allTextContents();
    counted += costs.length;
    for (const c of costs) sum += micros(c);
    const next = events.locator(".ant-pagination-next");
    if ((await next.getAttribute("aria-disabled")) === "true") break;
    await next.click();
  }
  expect(counted).toBe(shown);
  expect(sum).toBe(exact);

  // The per-operation costs add up to the same.
  const perOperation = page.getByTestId("eval-run-operations").locator("tbody tr.ant-table-row");
  let opSum = 0n;
  for (const text of await perOperation.locator("td:last-child").allTextContents()) opSum += micros(text);
  expect(opSum).toBe(exact);
  await page.screenshot({ path: "test-results/eval-run-page.png", fullPage: true });

  // The list finds the run by its id, with the same cost.
  await page.getByRole("link", { name: "Back to Eval Runs" }).click();
  await expect(page.getByRole("heading", { name: "Eval Runs" })).toBeVisible();
  await page.getByLabel("Search eval runs").fill(run);
  const listed = page.locator(".ant-table-tbody tr.ant-table-row");
  await expect(listed).toHaveCount(1);
  await expect(listed.first()).toContainText(run);
  const cost = listed.first().locator("td").last().locator("span");
  expect(micros((await cost.getAttribute("title")) ?? "")).toBe(exact);
  await page.getByLabel("Search eval runs").fill("");
  await expect(listed).toHaveCount(10);
  await page.screenshot({ path: "test-results/eval-runs-list.png", fullPage: true });
});

test("a filtered, sorted second page of Eval Runs opens from its URL and survives a reload", async ({
  page,
}) => {
  await signIn(page, "admin@acme.test", "/eval-runs");
  await expect(page.getByRole("heading", { name: "Eval Runs" })).toBeVisible();

  // Choosing a workspace in the Workspace column's filter puts Refine's filter in the URL; its id
  // is read from there.
  await workspaceFilter(page).click();
  await page.getByRole("combobox", { name: "Workspace" }).click();
  await page.locator(".ant-select-item-option", { hasText: "Safety Research" }).click();
  // A click on the panel beside the select closes its list, which covers the Filter button.
  await page.locator(".ant-table-filter-dropdown").click({ position: { x: 4, y: 4 } });
  await page.getByRole("button", { name: /^(filter )?Filter$/ }).click();
  await expect(page).toHaveURL(/workspace_uuid/);
  const chosen = /\[value\]\[0\]=([0-9a-f-]{36})/.exec(decodeURIComponent(page.url()))?.[1];
  expect(chosen, "the workspace filter is in the URL").toBeTruthy();

  // The link as someone would share it: that workspace, cheapest first, the second page.
  const link =
    `/eval-runs?currentPage=2&pageSize=10&sorters[0][field]=cost&sorters[0][order]=asc` +
    `&filters[0][field]=workspace_uuid&filters[0][operator]=in&filters[0][value][0]=${chosen}`;
  await page.goto(link);

  const rows = page.locator(".ant-table-tbody tr.ant-table-row");
  const view = async () => {
    await expect(workspaceFilter(page)).toHaveClass(/active/);
    await expect(page.locator(".ant-pagination-item-active")).toHaveText("2");
    await expect(page.getByRole("columnheader", { name: "Cost", exact: true })).toHaveAttribute(
      "aria-sort",
      "ascending",
    );
    await expect(rows.first()).toBeVisible();
    await settled(page);
    // The first cell is the Compare choice's checkbox: Run ID, Eval and Workspace follow.
    for (const text of await rows.locator("td:nth-child(4)").allTextContents())
      expect(text).toBe("Safety Research");
    const costs = await rows
      .locator("td:last-child span")
      .evaluateAll((spans) => spans.map((s) => s.getAttribute("title") ?? ""));
    const values = costs.map(micros);
    expect(values, "cheapest first").toEqual([...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    return rows.locator("td:nth-child(2)").allTextContents();
  };

  const shown = await view();
  expect(shown.length).toBeGreaterThan(0);
  await page.screenshot({ path: "test-results/eval-runs-deep-link.png", fullPage: true });
  await page.reload();
  expect(await view()).toEqual(shown);
});
