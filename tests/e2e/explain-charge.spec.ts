import { expect, type Locator, type Page, test } from "@playwright/test";
import { signIn } from "./console";
import { micros, usd } from "./money";

// "Explain this charge" on the seeded demo organization: from the Total Cost down to one event,
// checking at every level that the parts on screen (with the rows for the parts on other pages)
// add up to the total on screen, to the micro-dollar, and that the top is the page's Total Cost.
// A reload of any level's address opens the same level (deep links).

/** Money as the drawer shows it, exact: "$1,204.0375", "-$300.00". */
const shown = (text: string | null) => {
  const m = /^(-)?\$([\d,]+\.\d+)$/.exec((text ?? "").trim());
  if (!m) throw new Error(`not an amount: ${text}`);
  const n = micros((m[2] ?? "").replaceAll(",", ""));
  return m[1] ? -n : n;
};

const drawerOf = (page: Page) => page.getByRole("dialog").filter({ hasText: "Explain this charge" });

/** Waits for the level at `path` to be on screen, its answer in (nothing dimmed or loading). */
async function at(drawer: Locator, path: string[]) {
  // The breadcrumb, not the label: a group and its workspace may share a name. A reload waits for
  // the whole page first (seconds on a busy machine).
  await expect(drawer.locator(".ant-breadcrumb")).toHaveText(path.join("/"), { timeout: 90_000 });
  await expect(drawer.getByTestId("explain-label")).toHaveText(path.at(-1) ?? "");
  await expect(drawer.locator("[aria-busy=true]")).toHaveCount(0);
  await expect(drawer.locator(".ant-spin-spinning")).toHaveCount(0);
}

/** The level's total, checked against its parts (or, for an event, its line); returns it. */
async function checkSums(drawer: Locator): Promise<bigint> {
  const total = shown(await drawer.getByTestId("explain-total").textContent());
  const costs = await drawer.getByTestId("explain-part-cost").allTextContents();
  if (costs.length) {
    const sum = costs.reduce((t, c) => t + shown(c), 0n);
    expect(sum, `parts ${costs.join(" + ")}`).toBe(total);
    expect(shown(await drawer.getByTestId("explain-parts-sum").textContent())).toBe(total);
  } else {
    // An event: its line, quantity × unit price = cost, or an adjustment's own cost.
    expect(
      shown(
        await drawer
          .getByTestId("explain-lines-sum")
          .textContent()
          .then((t) => (t ?? "").slice(2)),
      ),
    ).toBe(total);
  }
  // Every rule line's arithmetic holds as shown.
  for (const text of await drawer.getByTestId("explain-arithmetic").allTextContents()) {
    const m = /^([\d,]+) × (\$[\d,.]+) = (-?\$[\d,.]+)$/.exec(text);
    expect(m, text).not.toBeNull();
    if (m) expect(BigInt((m[1] ?? "").replaceAll(",", "")) * shown(m[2] ?? "")).toBe(shown(m[3] ?? ""));
  }
  return total;
}

/** Opens the first part that opens a level (the largest), checks its cost is the new total. */
async function drill(page: Page, drawer: Locator, path: string[], shot: string) {
  const row = drawer
    .getByTestId("explain-part")
    .filter({ has: page.locator("button") })
    .first();
  const link = row.locator("button").first();
  const label = ((await link.textContent()) ?? "").trim();
  const cost = shown(await row.getByTestId("explain-part-cost").textContent());
  // Keyboard: the part's name is a button; Enter opens it.
  await link.focus();
  await page.keyboard.press("Enter");
  path.push(label);
  await at(drawer, path);
  expect(await checkSums(drawer), `${label}'s total is its part's cost`).toBe(cost);
  await page.screenshot({ path: test.info().outputPath(`${shot}.png`) });
  return label;
}

test.describe.configure({ timeout: 240_000 });

test("Explain this charge drills from the Total Cost to one event, every level adding up", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1400, height: 1000 });
  await signIn(page, "admin@acme.test", "/");
  await expect(page.getByRole("heading", { name: "Billing & Usage" })).toBeVisible({ timeout: 120_000 });
  const totalCost = page.getByTestId("total-cost");
  await expect(totalCost.getByText(/^-?\$[\d,]+\.\d{2}$/).first()).toBeVisible({ timeout: 60_000 });
  const pageTotal = (
    (await totalCost
      .getByText(/^-?\$[\d,]+\.\d{2}$/)
      .first()
      .textContent()) ?? ""
  ).trim();

  await totalCost.getByRole("button", { name: "Explain this charge" }).click();
  const drawer = drawerOf(page);
  await at(drawer, ["Total Cost"]);
  await expect(page).toHaveURL(/[?&]explain=cycle/);
  const total = await checkSums(drawer);
  // The exact total is the page's Total Cost, which shows it to the cent.
  expect(usd(total)).toBe(pageTotal);
  await page.screenshot({ path: test.info().outputPath("0-total.png") });

  const path = ["Total Cost"];
  await drill(page, drawer, path, "1-group");
  await drill(page, drawer, path, "2-workspace");
  await drill(page, drawer, path, "3-eval-run");
  const runUrl = page.url();
  const runTotal = shown(await drawer.getByTestId("explain-total").textContent());
  await drill(page, drawer, path, "4-event");
  await expect(page).toHaveURL(/[?&]explain=event&explain_event=[0-9a-f-]{36}/);
  await expect(drawer.getByTestId("explain-line")).toHaveCount(1);

  // Deep links: the event's address opens the event after a reload, the run's its run.
  const eventUrl = page.url();
  const eventTotal = (await drawer.getByTestId("explain-total").textContent()) ?? "";
  await page.reload();
  await at(drawerOf(page), path);
  await expect(drawerOf(page).getByTestId("explain-total")).toHaveText(eventTotal);
  await page.goto(runUrl);
  await at(drawerOf(page), path.slice(0, -1));
  expect(await checkSums(drawerOf(page))).toBe(runTotal);

  // Up through the breadcrumb, then closed: the page's address without the drill-down.
  await drawerOf(page).locator(".ant-breadcrumb").getByRole("button", { name: "Total Cost" }).click();
  await at(drawerOf(page), ["Total Cost"]);
  expect(await checkSums(drawerOf(page))).toBe(total);
  await drawerOf(page).getByRole("button", { name: "Close" }).click();
  await expect(drawerOf(page)).toBeHidden();
  expect(new URL(page.url()).searchParams.get("explain")).toBeNull();
  expect(eventUrl).not.toBe(runUrl);
});
