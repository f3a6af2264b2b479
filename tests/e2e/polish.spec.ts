// What a demanding user notices: one colour per eval type, credits shown as credits, the Balance
// caption of a paid cycle, phone layouts without cut titles or sideways scrolling, the collapsed
// sider's tooltip timing (spec §9), no zooming dialogs for someone who asked for reduced motion,
// and lists opened by their address without a spinner left over their first rows.
import { expect, type Locator, type Page, test } from "@playwright/test";
import { E2E } from "../../playwright.config";
import { signIn } from "./console";

test.describe.configure({ timeout: 180_000 });

type Cycle = {
  billing_cycle_uuid: string;
  billing_cycle_start_date: string;
  paid_amount_usd: string;
  unattributed_cost?: string;
  workspace_groups: { group_name: string; total_cost: string; balance_remaining: string }[];
};
type Summary = { credits?: { events: number; cost: string } };

const micros = (v: string | undefined) => {
  const [whole = "0", frac = ""] = (v ?? "0").replace("-", "").split(".");
  const n = BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(6, "0").slice(0, 6));
  return (v ?? "").startsWith("-") ? -n : n;
};

async function api(page: Page) {
  const auth = await page.request.get(`${E2E.auth}/api/v1/refresh_token`);
  expect(auth.ok()).toBe(true);
  const headers = { Authorization: `Bearer ${(await auth.json()).access_token as string}` };
  return async <T>(path: string): Promise<T> => {
    const res = await page.request.get(`${E2E.console}${path}`, { headers });
    expect(res.ok(), path).toBe(true);
    return (await res.json()) as T;
  };
}

/** Steps the period stepper from the latest cycle back to `index` (cycles in start order). */
async function openCycle(page: Page, cycles: Cycle[], index: number) {
  for (let i = cycles.length - 1; i > index; i--) {
    await page.getByRole("button", { name: "Previous billing period" }).click();
  }
}

const background = (l: Locator) => l.evaluate((el) => getComputedStyle(el).backgroundColor);

/** Eval type label → colour, as the summary's By Eval Type bars and the chart's legend draw them. */
async function summaryColours(page: Page) {
  const out = new Map<string, string>();
  const rows = page.getByTestId("breakdown-by-eval-type").getByTestId("breakdown-row");
  for (const row of await rows.all()) {
    const label = (await row.locator(".ant-typography").first().textContent())?.trim() ?? "";
    out.set(label, await background(row.locator(".ant-progress-bg")));
  }
  return out;
}
async function legendColours(page: Page) {
  const out = new Map<string, string>();
  for (const item of await page.getByTestId("chart-legend").getByRole("listitem").all()) {
    out.set((await item.textContent())?.trim() ?? "", await background(item.getByTestId("legend-swatch")));
  }
  return out;
}

test("an eval type keeps its colour, credits have their own line, a paid cycle is not outstanding", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, "admin@acme.test", "/");
  const get = await api(page);
  const cycles = (await get<Cycle[]>("/v1/accounts/organization/billingcycles")).sort((a, b) =>
    a.billing_cycle_start_date.localeCompare(b.billing_cycle_start_date),
  );

  // The latest cycle with credits in its usage (the demo has some in every full cycle).
  let credited = -1;
  for (let i = cycles.length - 1; i >= 0 && credited < 0; i--) {
    const s = await get<Summary>(`/v1/usage/summary?billing_cycle_uuid=${cycles[i]?.billing_cycle_uuid}`);
    if ((s.credits?.events ?? 0) > 0 && micros(s.credits?.cost) < 0n) credited = i;
  }
  expect(credited, "a cycle with credits").toBeGreaterThanOrEqual(0);
  await openCycle(page, cycles, credited);
  await expect(page.getByTestId("breakdown-by-eval-type").getByTestId("breakdown-row").first()).toBeVisible();
  await expect(page.getByTestId("chart-legend").getByRole("listitem").first()).toBeVisible();

  // Credits: their own line, in credit green; no operation tile turns negative.
  const credits = page.getByRole("region", { name: "Credits", exact: true });
  await expect(credits).toBeVisible();
  await expect(credits).toContainText(/-\$[\d,]+\.\d{2}/);
  await expect(credits).toContainText(/\d+ credits?/);
  for (const tile of await page.getByTestId("usage-tile").allTextContents()) expect(tile).not.toContain("-$");
  // The chart draws them as their own series.
  await expect(page.getByTestId("chart-legend")).toContainText("Credits & adjustments");

  // One colour per eval type: the summary's bars, the legend, and the legend in every grouping.
  const summary = await summaryColours(page);
  const daily = await legendColours(page);
  const shared = [...summary.keys()].filter((label) => daily.has(label));
  expect(shared.length).toBeGreaterThanOrEqual(3);
  for (const label of shared) expect(daily.get(label), label).toBe(summary.get(label));
  expect(new Set(shared.map((l) => summary.get(l))).size).toBe(shared.length);
  const chart = page.getByTestId("usage-chart");
  for (const grouping of ["Weekly", "Monthly"]) {
    await chart.getByText(grouping, { exact: true }).click();
    await expect(page.getByTestId("chart-legend").getByRole("listitem").first()).toBeVisible();
    const legend = await legendColours(page);
    for (const [label, colour] of legend)
      if (summary.has(label)) expect(colour, label).toBe(summary.get(label));
  }
  await page.screenshot({ path: "test-results/polish-billing-credits.png", fullPage: true });

  // A cycle whose payments cover its Balance figure says so instead of "Outstanding".
  const balanceOf = (c: Cycle) => {
    let b = micros(c.unattributed_cost);
    for (const g of c.workspace_groups)
      if (micros(g.balance_remaining) > 0n) b += micros(g.balance_remaining);
    return b;
  };
  const paid = cycles.findIndex((c) => balanceOf(c) > 0n && micros(c.paid_amount_usd) >= balanceOf(c));
  expect(paid, "a cycle paid in full").toBeGreaterThanOrEqual(0);
  await page.goto("/");
  await expect(page.getByTestId("balance")).toBeVisible();
  await openCycle(page, cycles, paid);
  await expect(page.getByTestId("balance-caption")).toHaveText("Beyond prepaid credit · paid in full");
  await expect(page.getByTestId("balance")).not.toContainText("Outstanding");
});

test("on a 390 px phone card titles are whole and the API key list needs no sideways scrolling", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "admin@acme.test", "/");
  // With the data in, the cards' headers hold their extras (total, export) too.
  await expect(page.getByTestId("summary-total")).toBeVisible();
  await expect(page.getByRole("button", { name: "Export to CSV" })).toBeVisible();
  for (const title of ["Usage Summary", "Cost & Usage Records"]) {
    const head = page.locator(".ant-card-head-title", { hasText: title });
    await expect(head).toBeVisible();
    expect(await head.evaluate((el) => el.scrollWidth <= el.clientWidth), title).toBe(true);
  }

  await page.goto("/account/api-keys");
  await page.getByRole("button", { name: "Create API Key" }).click();
  await page
    .getByRole("dialog")
    .getByRole("button", { name: /Create$/ })
    .click();
  const shown = page.getByRole("dialog").filter({ hasText: "Your new API key" });
  const keyId = await shown.getByRole("textbox", { name: "Key ID", exact: true }).inputValue();
  await shown.getByRole("button", { name: "Done" }).click();
  const del = page.getByRole("button", { name: `Delete API key ${keyId}` });
  await expect(del).toBeVisible();
  const box = await del.boundingBox();
  expect(box && box.x + box.width <= 390).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const table = page.locator(".ant-table-content, .ant-table-body").first();
  expect(await table.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  await page.screenshot({ path: "test-results/polish-api-keys-390.png", fullPage: true });
});

test("on a 390 px phone a wide table scrolls sideways inside its card, its fixed last column in view", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "admin@acme.test", "/");
  const records = page.locator(".ant-card").filter({ hasText: "Cost & Usage Records" });
  await expect(records.locator(".ant-table-tbody tr.ant-table-row").first()).toBeVisible();
  for (const [path, table, first, last] of [
    ["/", records.locator(".ant-table"), "Date", "Unit Price"],
    ["/users", page.locator(".ant-table").first(), "Email", "Actions"],
  ] as const) {
    if (path !== "/") {
      await page.goto(path);
      await expect(table.locator(".ant-table-tbody tr.ant-table-row").first()).toBeVisible();
    }
    // The page itself never scrolls sideways; the table's own box does.
    expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
    const box = table.locator(".ant-table-content");
    expect(await box.evaluate((el) => el.scrollWidth > el.clientWidth + 100), path).toBe(true);
    const header = (name: string) => table.locator("thead th").filter({ hasText: name }).first();
    const inView = async (name: string) => {
      const b = await header(name).boundingBox();
      const frame = await box.boundingBox();
      return !!b && !!frame && b.x >= frame.x - 1 && b.x + b.width <= frame.x + frame.width + 1;
    };
    expect(await inView(first), `${path}: ${first} before scrolling`).toBe(true);
    expect(await inView(last), `${path}: ${last} before scrolling`).toBe(false);
    // The records' Cost is fixed to the right edge: in view wherever the table is scrolled.
    if (path === "/") expect(await inView("Cost"), "Cost before scrolling").toBe(true);
    await box.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await expect.poll(() => inView(last), `${path}: ${last} scrolled into view`).toBe(true);
    expect(await inView(first), `${path}: ${first} scrolled out`).toBe(false);
    if (path === "/") expect(await inView("Cost"), "Cost after scrolling").toBe(true);
  }
  await page.screenshot({ path: "test-results/polish-users-390.png", fullPage: true });
});

test("the collapsed sider's tooltips open after 700 ms", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, "admin@acme.test", "/account/settings");
  await expect(page.getByRole("heading", { name: "Account Settings" })).toBeVisible();
  await page.getByRole("button", { name: "Toggle Sidebar" }).click();
  await expect(page.getByTestId("app-sider")).toHaveCSS("width", "48px");
  const nav = page.getByRole("navigation", { name: "Main" });
  // The delay is read on the page's own clock, from the pointer entering the entry to its tooltip
  // appearing: a busy machine can slow the test's steps, never make the tooltip open sooner.
  await page.evaluate(() => {
    const w = window as unknown as { tooltipTimes: { entered?: number; shown?: number } };
    w.tooltipTimes = {};
    const entry = document.querySelectorAll('nav[aria-label="Main"] a')[1];
    entry?.addEventListener("mouseenter", () => {
      w.tooltipTimes.entered ??= performance.now();
    });
    new MutationObserver(() => {
      const shown = [...document.querySelectorAll('[role="tooltip"]')].some(
        (t) => t.textContent?.includes("Eval Runs") && !t.closest(".ant-tooltip-hidden"),
      );
      if (w.tooltipTimes.entered !== undefined && shown) w.tooltipTimes.shown ??= performance.now();
    }).observe(document.body, { childList: true, subtree: true, attributes: true });
  });
  await nav.getByRole("link").nth(1).hover();
  // The second entry: Eval Runs, after Billing & Usage.
  await expect(page.getByRole("tooltip")).toHaveText("Eval Runs", { timeout: 5_000 });
  const times = await page.evaluate(
    () => (window as unknown as { tooltipTimes: { entered?: number; shown?: number } }).tooltipTimes,
  );
  expect(times.entered).toBeDefined();
  expect((times.shown ?? 0) - (times.entered ?? 0)).toBeGreaterThanOrEqual(700);
});

test("someone who asks for reduced motion gets dialogs without the zoom, and the zoom back when they stop", async ({
  page,
}) => {
  await signIn(page, "admin@acme.test", "/users");
  // The dialog's transform in every frame from the click that opens it until it has been open a
  // while: a zoom scales it up from a fifth of its size.
  const transformsWhileOpening = async () => {
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      // From the dialog's first frame (however long the click takes to open it on a busy machine).
      const watched = performance.now();
      let shown: number | undefined;
      const frame = () => {
        const modal = document.querySelector(".ant-modal");
        if (modal) {
          shown ??= performance.now();
          seen.push(getComputedStyle(modal).transform);
        }
        const now = performance.now();
        if (shown === undefined ? now - watched < 10_000 : now - shown < 1500) requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
    await page.getByRole("button", { name: "Invite user" }).click();
    const invite = page.getByRole("dialog").filter({ hasText: "Invite user" });
    await expect(invite).toBeVisible();
    await page.waitForTimeout(1500);
    await invite.getByRole("button", { name: "Cancel" }).click();
    await expect(invite).toBeHidden();
    return [...new Set(await page.evaluate(() => (window as unknown as { seen: string[] }).seen))];
  };

  await page.emulateMedia({ reducedMotion: "reduce" });
  expect(await transformsWhileOpening()).toEqual(["none"]);
  await page.emulateMedia({ reducedMotion: "no-preference" });
  expect((await transformsWhileOpening()).some((t) => t.startsWith("matrix"))).toBe(true);
});

test("a list opened by its address shows its first rows answered, with no spinner left over them", async ({
  page,
}) => {
  // Each page's first reads were made by the console's entry before the page rendered (its early
  // reads); the table must take them as its answer, not as a placeholder still loading.
  await signIn(page, "admin@acme.test", "/eval-runs");
  for (const path of ["/eval-runs", "/organization/audit-log", "/users", "/account/api-keys"]) {
    await page.goto(path);
    // A row, or the empty list's placeholder row (this administrator may have no API keys).
    await expect(page.locator(".ant-table-tbody tr:not(.ant-table-measure-row)").first(), path).toBeVisible();
    await expect(page.locator(".ant-table .ant-spin-spinning"), path).toHaveCount(0);
  }
  await page.goto("/users");
  // Users shows its pending invitations once the members have answered.
  await expect(page.locator(".ant-card").filter({ hasText: "Pending invitations" })).toBeVisible();
});
