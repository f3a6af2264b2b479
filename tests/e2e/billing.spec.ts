import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import Papa from "papaparse";
import { evalTypeGroup, evalTypeLabel } from "../../contract/eval-types";
import { CSV_HEADERS, CSV_PRICING_HEADERS } from "../../contract/usage-csv";
import { E2E } from "../../playwright.config";
import { sessionHeaders, signIn } from "./console";
import { micros, usd } from "./money";

// The Billing & Usage page on the seeded demo organization. Expected figures come from the raw
// events (the streamed CSV export, read straight from the API and added up here in integer
// micro-dollars), while the page shows the server's daily rollups: the two must agree.

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

type Cycle = {
  billing_cycle_uuid: string;
  billing_cycle_start_date: string;
  billing_cycle_end_date: string | null;
  paid_amount_usd: string;
  unattributed_cost: string;
  workspace_groups: { group_name: string; total_cost: string; balance_remaining: string }[];
};
type Row = Record<string, string>;

const day = (d: string) => {
  const date = new Date(`${d}T00:00:00Z`);
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
};
const period = (c: Cycle) =>
  `${day(c.billing_cycle_start_date)} - ${c.billing_cycle_end_date ? day(c.billing_cycle_end_date) : "Present"}`;
const sumBy = (rows: Row[], key: string) => {
  const m = new Map<string, bigint>();
  for (const r of rows) m.set(r[key] ?? "", (m.get(r[key] ?? "") ?? 0n) + micros(r.Cost ?? "0"));
  return m;
};
const total = (rows: Row[]) => rows.reduce((t, r) => t + micros(r.Cost ?? "0"), 0n);

async function api(page: Page) {
  const headers = await sessionHeaders(page);
  return {
    json: async <T>(path: string): Promise<T> => {
      const res = await page.request.get(`${E2E.console}${path}`, { headers });
      expect(res.ok(), path).toBe(true);
      return (await res.json()) as T;
    },
    csv: async (query: string): Promise<Row[]> => {
      const res = await page.request.get(`${E2E.console}/v1/usage/export.csv?${query}`, {
        headers,
        timeout: 120_000,
      });
      expect(res.ok()).toBe(true);
      const parsed = Papa.parse<Row>(await res.text(), { header: true, skipEmptyLines: true });
      expect(parsed.meta.fields).toEqual(CSV_HEADERS);
      return parsed.data;
    },
  };
}

const settled = (page: Page) => expect(page.locator(".ant-spin-blur")).toHaveCount(0);

test.describe.configure({ timeout: 240_000 });

test("the dashboard's totals, summary, chart and records reconcile with the raw usage", async ({ page }) => {
  await signIn(page, "admin@acme.test", "/");
  await expect(page.getByRole("heading", { name: "Billing & Usage" })).toBeVisible();
  const http = await api(page);
  const cycles = (await http.json<Cycle[]>("/v1/accounts/organization/billingcycles")).sort((a, b) =>
    a.billing_cycle_start_date.localeCompare(b.billing_cycle_start_date),
  );
  expect(cycles.length).toBe(3);
  const latest = cycles[cycles.length - 1] as Cycle;
  const rows = await http.csv(`billing_cycle_uuid=${latest.billing_cycle_uuid}`);
  expect(rows.length).toBeGreaterThan(1000);

  // Freshness and the period stepper: the latest cycle first, next disabled at the end.
  await expect(page.getByTestId("data-as-of")).toHaveText(
    /^Data as of [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2}:\d{2} UTC$/,
  );
  await expect(page.getByText("Billing Period", { exact: true })).toBeVisible();
  await expect(page.getByTestId("billing-period")).toHaveText(period(latest));
  await expect(page.getByRole("button", { name: "Next billing period" })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Previous billing period" })).toBeEnabled();

  // Totals strip: total from the raw events, groups ("default" is Other), paid, balance.
  const totalCost = page.getByTestId("total-cost");
  await expect(totalCost.getByText(usd(total(rows)), { exact: true })).toBeVisible();
  if (latest.workspace_groups.length > 1) {
    for (const g of latest.workspace_groups) {
      const line = totalCost
        .getByTestId("total-cost-groups")
        .locator("div")
        .filter({
          hasText: g.group_name === "default" ? "Other" : g.group_name,
        });
      await expect(line.first()).toContainText(usd(micros(g.total_cost)));
    }
  }
  await expect(page.getByTestId("paid")).toContainText(usd(micros(latest.paid_amount_usd)));
  let balance = micros(latest.unattributed_cost);
  for (const g of latest.workspace_groups)
    if (micros(g.balance_remaining) > 0n) balance += micros(g.balance_remaining);
  const balanceText = balance < 0n ? `(${usd(-balance)})` : usd(balance);
  await expect(page.getByTestId("balance")).toContainText(balanceText);

  // Usage Summary: total and the breakdowns from the raw events.
  await expect(page.getByTestId("summary-total")).toHaveText(
    `Total ${usd(total(rows))} · ${rows.length.toLocaleString("en-US")} events`,
  );
  const tiles = page.getByTestId("usage-tile");
  expect(await tiles.count()).toBeGreaterThan(0);
  for (const label of await tiles.locator("span").first().allTextContents())
    expect(["Evals Generated", "Evals Scored", "Prompts Generated", "Responses Scored"]).toContain(label);
  const byWorkspace = [...sumBy(rows, "Workspace").entries()].sort((a, b) =>
    a[1] === b[1] ? 0 : a[1] > b[1] ? -1 : 1,
  );
  const wsSection = page.getByTestId("breakdown-by-workspace");
  for (const [name, cost] of byWorkspace.filter(([n]) => n !== "Unknown Workspace").slice(0, 6)) {
    await expect(wsSection.getByTestId("breakdown-row").filter({ hasText: name }).first()).toContainText(
      usd(cost),
    );
  }
  // By eval type group (hallucination counts as accuracy): one Accuracy row with the merged cost.
  const grouped = rows.map((r) => ({ ...r, "Eval Type": evalTypeGroup(r["Eval Type"] ?? "") }));
  const byType = [...sumBy(grouped, "Eval Type").entries()].sort((a, b) =>
    a[1] === b[1] ? 0 : a[1] > b[1] ? -1 : 1,
  );
  const typeSection = page.getByTestId("breakdown-by-eval-type");
  await expect(typeSection.getByTestId("breakdown-row")).toHaveCount(Math.min(5, byType.length));
  const [topType, topCost] = byType[0] as [string, bigint];
  await expect(typeSection.getByTestId("breakdown-row").first()).toContainText(evalTypeLabel(topType));
  await expect(typeSection.getByTestId("breakdown-row").filter({ hasText: "Accuracy" })).toHaveCount(
    byType.slice(0, 5).some(([type]) => type === "accuracy") ? 1 : 0,
  );
  await expect(typeSection.getByTestId("breakdown-row").first()).toContainText(usd(topCost));

  // The chart: a separate chunk, a legend, and the Cost|Usage toggle redraws the y-axis.
  const chart = page.getByTestId("usage-chart");
  await expect(chart.getByText("Cost Over Time")).toBeVisible();
  await expect(chart.locator("canvas").first()).toBeVisible();
  await expect(page.getByTestId("chart-legend").getByRole("listitem").first()).toBeVisible();
  await page.waitForTimeout(800);
  const costPixels = await page.getByTestId("usage-chart-canvas").screenshot();
  await chart.getByText("Usage", { exact: true }).click();
  await expect(chart.getByText("Usage Over Time")).toBeVisible();
  await expect(page.getByTestId("usage-chart-canvas")).toHaveAttribute("data-metric", "usage");
  await page.waitForTimeout(800);
  expect((await page.getByTestId("usage-chart-canvas").screenshot()).equals(costPixels)).toBe(false);
  await chart.getByText("Weekly", { exact: true }).click();
  await chart.getByText("Monthly", { exact: true }).click();
  await chart.getByText("Cost", { exact: true }).click();

  // Records: the count and first page; newest first.
  const pager = page.getByTestId("records-pagination");
  const pages = Math.ceil(rows.length / 10);
  const n = (v: number) => v.toLocaleString("en-US");
  await expect(pager).toHaveText(`Page 1 of ${n(pages)} (${n(rows.length)} total records)`);
  const body = page.locator(".ant-table-tbody tr.ant-table-row");
  await expect(body).toHaveCount(10);
  await settled(page);
  await page.screenshot({ path: join(tmpdir(), "billing-desktop.png"), fullPage: true });

  // Paging: next, last, first.
  await page.getByRole("button", { name: "Next page" }).click();
  await expect(pager).toHaveText(`Page 2 of ${n(pages)} (${n(rows.length)} total records)`);
  await settled(page);
  await page.getByRole("button", { name: "Last page" }).click();
  await expect(pager).toHaveText(`Page ${n(pages)} of ${n(pages)} (${n(rows.length)} total records)`);
  await settled(page);
  await page.getByRole("button", { name: "First page" }).click();
  await expect(pager).toHaveText(`Page 1 of ${n(pages)} (${n(rows.length)} total records)`);

  // Sorting: Cost ascending puts the cheapest event first.
  await settled(page);
  await page.locator("thead th").filter({ hasText: "Cost" }).click();
  let cheapest = micros(rows[0]?.Cost ?? "0");
  for (const r of rows) if (micros(r.Cost ?? "0") < cheapest) cheapest = micros(r.Cost ?? "0");
  await expect(body.first().locator("td").last()).toHaveText(usd(cheapest));
  await expect(page.locator("thead th").filter({ hasText: "Cost" })).toHaveAttribute(
    "aria-sort",
    "ascending",
  );

  // Hover card.
  await body.nth(1).hover();
  await expect(page.locator(".ant-popover").getByText("Usage Event Details")).toBeVisible();
  // Moving away closes it (it holds a link, so it stays open while the pointer is on it).
  await page.mouse.move(0, 0);
  await expect(page.locator(".ant-popover:not(.ant-popover-hidden)")).toHaveCount(0);

  // Search: a distinctive eval name narrows the table and the pager.
  const name = rows[0]?.Eval ?? "";
  const matching = rows.filter((r) =>
    Object.values(r).some((v) => v.toLowerCase().includes(name.toLowerCase())),
  );
  await page.getByPlaceholder("Search...").fill(name);
  await expect(pager).toHaveText(
    `Page 1 of ${n(Math.ceil(matching.length / 10))} (${n(matching.length)} total records)`,
    {
      timeout: 30_000,
    },
  );
  await page.getByPlaceholder("Search...").fill("");
  await expect(pager).toHaveText(`Page 1 of ${n(pages)} (${n(rows.length)} total records)`);

  // Export to CSV through the page: the whole result, the spec's columns, today's name.
  await settled(page);
  const downloading = page.waitForEvent("download", { timeout: 120_000 });
  await page.getByRole("button", { name: "Export to CSV" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`usage_data_${new Date().toISOString().slice(0, 10)}.csv`);
  const file = await download.path();
  const text = readFileSync(file, "utf8");
  const exported = Papa.parse<Row>(text, { header: true, skipEmptyLines: true });
  expect(exported.meta.fields).toEqual(CSV_HEADERS);
  expect(exported.data.length).toBe(rows.length);
  expect(total(exported.data)).toBe(total(rows));

  // Beside it, the same records with the pricing details after the spec's columns.
  const detailing = page.waitForEvent("download", { timeout: 120_000 });
  await page.getByRole("button", { name: "Export with pricing details" }).click();
  const detailed = Papa.parse<Row>(readFileSync(await (await detailing).path(), "utf8"), {
    header: true,
    skipEmptyLines: true,
  });
  expect(detailed.meta.fields).toEqual(CSV_PRICING_HEADERS);
  expect(detailed.data.map((r) => CSV_HEADERS.map((h) => r[h]))).toEqual(
    exported.data.map((r) => CSV_HEADERS.map((h) => r[h])),
  );
});

test("filters and periods change every view together", async ({ page }) => {
  await signIn(page, "admin@acme.test", "/");
  const http = await api(page);
  const cycles = (await http.json<Cycle[]>("/v1/accounts/organization/billingcycles")).sort((a, b) =>
    a.billing_cycle_start_date.localeCompare(b.billing_cycle_start_date),
  );
  const latest = cycles[cycles.length - 1] as Cycle;
  const pager = page.getByTestId("records-pagination");
  await expect(pager).toContainText("total records");

  // Eval Type filter: options are labelled, the count badge and Clear all (1) appear.
  await page.getByRole("button", { name: "Eval Type: All" }).click();
  const menu = page.locator(".ant-dropdown:visible");
  await expect(menu.getByText("All", { exact: true })).toBeVisible();
  await menu.getByRole("menuitemcheckbox", { name: "Safety", exact: true }).click();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: "Eval Type: Safety" })).toBeVisible();
  await expect(page.getByTestId("filter-evalTypes-count")).toHaveText("1");
  await expect(page.getByRole("button", { name: "Clear all (1)" })).toBeVisible();
  const safety = await http.csv(`billing_cycle_uuid=${latest.billing_cycle_uuid}&eval_type=safety`);
  await expect(pager).toContainText(`(${safety.length.toLocaleString("en-US")} total records)`);
  await expect(page.getByTestId("summary-total")).toContainText(`Total ${usd(total(safety))}`);

  // Jailbreak and Ground Truth choices.
  await page.getByTestId("filter-jailbreak").locator(".ant-select").click();
  await page.locator(".ant-select-item-option", { hasText: "Jailbreak Only" }).click();
  await expect(page.getByRole("button", { name: "Clear all (2)" })).toBeVisible();
  await page.getByTestId("filter-ground-truth").locator(".ant-select").click();
  for (const label of ["All", "With Ground Truth", "Without Ground Truth"])
    await expect(
      page.locator(".ant-select-item-option:visible", { hasText: new RegExp(`^${label}$`) }),
    ).toHaveCount(1);
  await page.keyboard.press("Escape");

  await page.getByRole("button", { name: "Clear all (2)" }).click();
  await expect(page.getByRole("button", { name: /Clear all/ })).toHaveCount(0);

  // Workspace select: All workspaces, My workspace, one checkbox each; summary texts.
  await page.getByRole("button", { name: "Workspace: All workspaces" }).click();
  const wsMenu = page.locator(".ant-dropdown:visible");
  await expect(wsMenu.getByRole("menuitem", { name: "All workspaces", exact: true })).toBeVisible();
  await expect(wsMenu.getByRole("menuitem", { name: /^My workspace \(.+\)$/ })).toBeVisible();
  await wsMenu.getByRole("menuitemcheckbox", { name: "Red Team", exact: true }).click();
  await expect(page.getByRole("button", { name: "Workspace: Red Team" })).toBeVisible();
  await wsMenu.getByRole("menuitemcheckbox", { name: "Safety Research", exact: true }).click();
  await expect(
    page.getByRole("button", { name: /^Workspace: (Red Team|Safety Research) \+1$/ }),
  ).toBeVisible();
  await expect(page.getByTestId("workspace-select-count")).toHaveText("2");
  await wsMenu.getByRole("menuitem", { name: "All workspaces", exact: true }).click();
  await expect(page.getByRole("button", { name: "Workspace: All workspaces" })).toBeVisible();

  // Stepping back through the periods; previous is disabled at the first.
  for (let i = cycles.length - 2; i >= 0; i--) {
    await page.getByRole("button", { name: "Previous billing period" }).click();
    await expect(page.getByTestId("billing-period")).toHaveText(period(cycles[i] as Cycle));
  }
  await expect(page.getByRole("button", { name: "Previous billing period" })).toBeDisabled();
  const first = cycles[0] as Cycle;
  const firstRows = await http.csv(`billing_cycle_uuid=${first.billing_cycle_uuid}`);
  await expect(page.getByTestId("summary-total")).toContainText(`Total ${usd(total(firstRows))}`);
  await expect(pager).toContainText(`(${firstRows.length.toLocaleString("en-US")} total records)`);
  await expect(page.getByTestId("paid")).toContainText(usd(micros(first.paid_amount_usd)));
});

test("the mobile layout hides the chart; a member is sent away from /", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "admin@acme.test", "/");
  await expect(page.getByTestId("records-pagination")).toContainText("total records");
  await expect(page.getByTestId("usage-chart")).toHaveCount(0);
  await page.screenshot({ path: join(tmpdir(), "billing-mobile.png"), fullPage: true });
  await page.context().clearCookies();

  const member = await page.context().browser()?.newPage();
  if (!member) throw new Error("no browser");
  await signIn(member, "member@acme.test", "/organization/workspaces");
  await member.goto("/");
  await expect(member).toHaveURL(`${E2E.console}/organization/workspaces`);
  await member.close();
});

test("a linked view opens as it was shared, and again after a reload", async ({ page }) => {
  await signIn(page, "admin@acme.test", "/");
  // The default view has read its records before the link's reads are counted.
  await expect(page.getByTestId("records-pagination")).toHaveText(/^Page 1 of /);
  const http = await api(page);
  const cycles = (await http.json<Cycle[]>("/v1/accounts/organization/billingcycles")).sort((a, b) =>
    a.billing_cycle_start_date.localeCompare(b.billing_cycle_start_date),
  );
  const first = cycles[0] as Cycle;
  const rows = await http.csv(
    `billing_cycle_uuid=${first.billing_cycle_uuid}&eval_type=safety&search=Red+Team`,
  );
  expect(rows.length).toBeGreaterThan(10);
  const byCost = rows.map((r) => micros(r.Cost ?? "0")).sort((a, b) => (a === b ? 0 : a < b ? -1 : 1));
  const n = (v: number) => v.toLocaleString("en-US");
  const link =
    `/?period=${first.billing_cycle_uuid}&eval_type=safety&grouping=weekly&metric=usage` +
    "&search=Red+Team&sort=cost&page=2";

  const recordPages: string[] = [];
  page.on("request", (req) => {
    const url = new URL(req.url());
    if (url.pathname === "/v1/usage/records") recordPages.push(url.searchParams.get("page") ?? "");
  });
  const sameView = async () => {
    await expect(page.getByTestId("billing-period")).toHaveText(period(first));
    await expect(page.getByRole("button", { name: "Eval Type: Safety" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Clear all (1)" })).toBeVisible();
    await expect(page.getByPlaceholder("Search...")).toHaveValue("Red Team");
    const chart = page.getByTestId("usage-chart");
    await expect(chart.getByText("Usage Over Time")).toBeVisible();
    await expect(chart.locator(".ant-segmented-item-selected")).toHaveText(["Usage", "Weekly"]);
    await expect(page.getByTestId("usage-chart-canvas")).toHaveAttribute("data-metric", "usage");
    await expect(page.getByTestId("records-pagination")).toHaveText(
      `Page 2 of ${n(Math.ceil(rows.length / 10))} (${n(rows.length)} total records)`,
    );
    await expect(page.locator("thead th").filter({ hasText: "Cost" })).toHaveAttribute(
      "aria-sort",
      "ascending",
    );
    await expect(page.locator(".ant-table-tbody tr.ant-table-row").first().locator("td").last()).toHaveText(
      usd(byCost[10] as bigint),
    );
    // The older link was rewritten once into the address the page writes itself.
    const address = new URL(page.url()).searchParams;
    expect(Object.fromEntries(address)).toEqual({
      period: first.billing_cycle_uuid,
      grouping: "weekly",
      metric: "usage",
      pageSize: "10",
      currentPage: "2",
      "sorters[0][field]": "cost",
      "sorters[0][order]": "asc",
      "filters[0][field]": "eval_type",
      "filters[0][operator]": "in",
      "filters[0][value][0]": "safety",
      "filters[1][field]": "search",
      "filters[1][operator]": "contains",
      "filters[1][value]": "Red Team",
    });
    // The linked page is the only one read: no detour through the first page.
    expect(recordPages.length).toBeGreaterThan(0);
    expect(recordPages.every((p) => p === "2")).toBe(true);
  };

  await page.goto(link);
  await sameView();
  await page.screenshot({ path: join(tmpdir(), "billing-linked-view.png"), fullPage: true });
  recordPages.length = 0;
  await page.reload();
  await sameView();

  // A hand-edited link with unusable values opens the default view, at the default view's address.
  await page.goto("/");
  await expect(page).toHaveURL(/currentPage=1/);
  const plain = page.url();
  await page.goto("/?period=nope&page=-3&sort=password&grouping=hourly&eval_type=");
  await expect(page.getByTestId("billing-period")).toHaveText(period(cycles[cycles.length - 1] as Cycle));
  await expect(page.getByTestId("records-pagination")).toHaveText(
    /^Page 1 of [\d,]+ \([\d,]+ total records\)$/,
  );
  await expect(page).toHaveURL(plain);
});

test("Refresh reads the chart's series again and the chart redraws", async ({ page }) => {
  await signIn(page, "admin@acme.test", "/");
  const canvas = page.getByTestId("usage-chart-canvas");
  await expect(canvas.locator("canvas").first()).toBeVisible();
  await expect(page.getByTestId("records-pagination")).toContainText("total records");
  await settled(page);
  await page.waitForTimeout(800);
  const before = await canvas.screenshot();

  // Usage arrives after the page loaded: from now on the series' latest bucket costs $500 more.
  let answered = 0;
  await page.route("**/v1/usage/series?**", async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as {
      buckets: { eval_types: { price: string }[] }[];
    };
    const latest = body.buckets.at(-1)?.eval_types[0];
    if (latest) latest.price = (Number(latest.price) + 500).toFixed(4);
    answered++;
    await route.fulfill({ response, json: body });
  });
  const reads = ["/v1/usage/series", "/v1/usage/summary", "/v1/usage/records", "/billingcycles"].map((path) =>
    page.waitForRequest((req) => new URL(req.url()).pathname.endsWith(path)),
  );
  await page.getByRole("button", { name: "Refresh" }).click();
  await Promise.all(reads);
  await expect.poll(() => answered).toBe(1);
  await expect(page.getByRole("button", { name: "Refresh" })).not.toHaveClass(/ant-btn-loading/);
  await page.waitForTimeout(800);
  expect((await canvas.screenshot()).equals(before)).toBe(false);
});

test("while the page loads, the pager never shows a zero count and nothing jumps", async ({ page }) => {
  // Every text the pager shows (or its absence) from the first render, and the layout shift.
  await page.addInitScript(() => {
    const w = window as unknown as { pagerTexts: string[]; awaitingTexts: string[]; layoutShift: number };
    w.pagerTexts = [];
    w.awaitingTexts = [];
    w.layoutShift = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
        if (!entry.hadRecentInput) w.layoutShift += entry.value;
    }).observe({ type: "layout-shift", buffered: true });
    new MutationObserver(() => {
      const text = document.querySelector('[data-testid="records-pagination"]')?.textContent ?? "<none>";
      if (w.pagerTexts.at(-1) !== text) w.pagerTexts.push(text);
      const awaiting = document.querySelector('[data-testid="awaiting-pricing"]')?.textContent;
      if (awaiting && w.awaitingTexts.at(-1) !== awaiting) w.awaitingTexts.push(awaiting);
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
  // The records answer slowly, as on a busy server.
  await page.route("**/v1/usage/records?**", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await route.continue();
  });
  await signIn(page, "admin@acme.test", "/");
  const pager = page.getByTestId("records-pagination");
  await expect(pager).toHaveText(/^Page 1 of [\d,]+ \([\d,]+ total records\)$/);
  // The usage awaiting pricing: the demo's prices cover all of it; never a count of 0 on the way.
  await expect(page.getByTestId("awaiting-pricing")).toHaveText("No usage awaiting pricing");
  const { pagerTexts, awaitingTexts, layoutShift } = await page.evaluate(() => {
    const w = window as unknown as { pagerTexts: string[]; awaitingTexts: string[]; layoutShift: number };
    return { pagerTexts: w.pagerTexts, awaitingTexts: w.awaitingTexts, layoutShift: w.layoutShift };
  });
  expect(awaitingTexts.filter((t) => /\b0\b/.test(t))).toEqual([]);
  expect(awaitingTexts.at(-1)).toBe("No usage awaiting pricing");
  const shown = pagerTexts.slice(pagerTexts.findIndex((t) => t !== "<none>"));
  expect(shown[0]).toBe("Loading...");
  expect(shown.slice(1)).toEqual([(await pager.textContent()) ?? ""]);
  expect(pagerTexts.some((t) => /\b0 total records/.test(t))).toBe(false);
  // Placeholders take the room of what they stand for ("good" is below 0.1).
  expect(layoutShift).toBeLessThan(0.1);
  console.log(
    `billing page load: pager texts ${JSON.stringify(shown)}, layout shift ${layoutShift.toFixed(4)}`,
  );
});
