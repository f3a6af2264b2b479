import { expect, type Page, test } from "@playwright/test";
import { E2E } from "../../playwright.config";
import { actionButton, consoleAt, dialog, sessionHeaders, signIn, toast } from "./console";

// The operator area (issue 22, "Done when"): a provider operator signs in, opens the operator area
// from its sider group, and on Acme AI's page sets a price rule valid from a time in the past, which
// then shows in the organization's price history (and in the API's). A customer administrator sees
// no operator menu, is sent home from an operator page, and gets 403 from the operator API with
// their own token. Screenshots of each page and dialog are kept.
//
// The operator is a demo member made a provider operator for this test through the operator API
// (with the server's local operator credential), and is no longer one afterwards.

const OPERATOR = "member@acme.test";
const ADMIN = "admin@acme.test";
const SHOTS = "test-results/operator";
const operatorAuth = { authorization: `Bearer ${E2E.backendKey}` };

const nav = (page: Page) => page.getByRole("navigation", { name: "Main" });
/** A card of the page by its title (the innermost card carrying it). */
const card = (page: Page, title: string) =>
  page
    .locator(".ant-card-head-title")
    .filter({ hasText: new RegExp(`^${title}$`) })
    .locator("xpath=ancestor::div[contains(concat(' ', @class, ' '), ' ant-card ')][1]");

/** Waits until nothing on the page loads or moves (spinners, dialogs opening or closing), for a screenshot. */
async function settled(page: Page) {
  await expect(page.locator(".ant-spin-spinning, .ant-spin-blur")).toHaveCount(0);
  await expect(
    page.locator(".ant-zoom-appear, .ant-zoom-enter, .ant-zoom-leave, .ant-fade-appear, .ant-fade-leave"),
  ).toHaveCount(0);
}

/** "YYYY-MM-DD HH:mm" (UTC) of a moment, as the Valid from field takes it. */
const utcField = (d: Date) => d.toISOString().slice(0, 16).replace("T", " ");
/** The same moment as the price history shows it (in a UTC column): "Oct 15, 2026 08:30". */
const utcShown = (d: Date) =>
  `${d.toLocaleString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" })} ${d
    .toISOString()
    .slice(11, 16)}`;

test("a provider operator sets a price rule from a past time in the operator area and sees it in the history", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const granted = await page.request.post(`${E2E.console}/v1/operator/operators`, {
    headers: operatorAuth,
    data: { email: OPERATOR },
  });
  expect(granted.ok(), `grant: ${granted.status()} ${await granted.text()}`).toBe(true);
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await signIn(page, OPERATOR, "/organization/workspaces");

    // The sider's Operator group, after the organization's own entries.
    await expect(nav(page).getByText("Operator", { exact: true })).toBeVisible();
    await nav(page).getByRole("link", { name: "Organizations" }).click();
    await expect(page).toHaveURL(consoleAt("/operator/organizations"));
    await expect(page.getByRole("heading", { name: "Organizations" })).toBeVisible();
    const acmeRow = page.getByRole("row").filter({ hasText: "Acme AI" });
    await expect(acmeRow).toBeVisible();
    await page.getByLabel("Search organizations").fill("acme");
    await expect(acmeRow).toBeVisible();
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/organizations.png` });

    // Acme AI's page: its facts, own price rules, billing cycles and payments.
    await acmeRow.getByRole("link", { name: "Acme AI" }).click();
    await expect(page.getByRole("heading", { name: "Acme AI", level: 2 })).toBeVisible();
    const rules = card(page, "Price rules");
    const cycles = card(page, "Billing cycles");
    const payments = card(page, "Payments");
    await expect(rules.getByRole("row").nth(1)).toBeVisible();
    await expect(cycles.getByText("Present")).toBeVisible();
    await expect(payments.getByRole("row").nth(1)).toBeVisible();
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/organization.png`, fullPage: true });

    // Each cycle shows what the customer's totals strip shows, and what is still due; "Record
    // payment" starts from the open cycle's amount due.
    for (const title of ["Total cost", "Balance", "Paid", "Amount due"])
      await expect(cycles.getByRole("columnheader", { name: title })).toBeVisible();
    const openRow = cycles.getByRole("row").filter({ hasText: "Present" });
    const due = (await openRow.getByRole("cell").nth(5).textContent()) ?? "";
    expect(due).toMatch(/^\$[\d,]+\.\d{2}$/);
    await payments.getByRole("button", { name: "Record payment" }).click();
    const payment = dialog(page, "Record a payment");
    const amount = payment.getByLabel("Amount (USD)");
    await expect(amount).toBeVisible();
    // The field holds the exact amount (up to 6 decimals); the table shows it to the cent.
    const filled = await amount.inputValue();
    if (due === "$0.00") expect(filled).toBe("");
    else expect(Math.abs(Number(filled) - Number(due.replace(/[$,]/g, "")))).toBeLessThan(0.0051);
    await actionButton(payment, "Cancel").click();
    await expect(payment).toBeHidden();

    // A new price for a modality no other test sends, valid from 30 days ago.
    const modality = `e2e-${Date.now()}`;
    const from = new Date(Math.floor((Date.now() - 30 * 86_400_000) / 60_000) * 60_000);
    await rules.getByRole("button", { name: /Set price/ }).click();
    const form = dialog(page, "Set price");
    await expect(form.getByText("Acme AI")).toBeVisible();
    await form.getByLabel("Operation").fill("generation");
    await form.getByLabel("Eval type").fill("safety");
    await form.getByLabel("Modality").fill(modality);
    await form.getByLabel("Rule metric").click();
    await page.locator(".ant-select-item-option").filter({ hasText: "Per eval" }).click();
    await form.getByLabel("Unit price (USD)").fill("0.0421");
    await form.getByLabel("Valid from (UTC)").click();
    await form.getByLabel("Valid from (UTC)").fill(utcField(from));
    await form.getByLabel("Valid from (UTC)").press("Enter");
    await expect(form.getByLabel("Valid from (UTC)")).toHaveValue(utcField(from));
    await settled(page);
    await form.screenshot({ path: `${SHOTS}/set-price-dialog.png` });
    await actionButton(form, "Set price").click();
    await expect(form).toBeHidden();
    const priceSet = toast(page).filter({ hasText: "Price set" });
    await expect(priceSet).toBeVisible();
    await priceSet.locator(".ant-notification-notice-close").click();
    await expect(priceSet).toBeHidden();

    // The history shows it, active since then and open.
    const added = rules.getByRole("row").filter({ hasText: modality });
    await expect(added).toBeVisible();
    await expect(added).toContainText("$0.0421");
    await expect(added).toContainText(utcShown(from));
    await expect(added).toContainText("Active");
    await expect(added).toContainText("Open");
    await added.scrollIntoViewIfNeeded();
    await settled(page);
    await rules.screenshot({ path: `${SHOTS}/price-history.png` });

    // And the API agrees.
    const org = page.url().split("/").pop() as string;
    const listed = await page.request.get(`${E2E.console}/v1/operator/price-rules?organization_uuid=${org}`, {
      headers: await sessionHeaders(page),
    });
    expect(listed.ok(), `price rules: ${listed.status()} ${await listed.text()}`).toBe(true);
    const rule = ((await listed.json()).price_rules as Record<string, unknown>[]).find(
      (r) => r.modality === modality,
    );
    expect(rule).toMatchObject({
      organization_uuid: org,
      operation: "generation",
      eval_type: "safety",
      rule_metric: "eval",
      unit_price_usd: "0.0421",
      valid_from: from.toISOString(),
      valid_to: null,
      status: "active",
    });

    // The other operator pages: every price list, and the ingestion keys.
    await nav(page).getByRole("link", { name: "Price Rules" }).click();
    await expect(page.getByRole("heading", { name: "Price Rules" })).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: modality })).toBeVisible();
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/price-rules.png` });
    await nav(page).getByRole("link", { name: "Ingestion Keys" }).click();
    await expect(page.getByRole("heading", { name: "Ingestion Keys" })).toBeVisible();
    await expect(page.getByRole("row").nth(1)).toBeVisible();
    // An ingestion key for Acme AI: its token shown once, then revoked after a confirmation.
    const keyName = `E2E key ${Date.now()}`;
    await page.getByRole("button", { name: /Create ingestion key/ }).click();
    const create = dialog(page, "Create ingestion key");
    await create.getByLabel("Name").fill(keyName);
    await create.getByLabel("Sends for").fill("Acme");
    await page.locator(".ant-select-item-option").filter({ hasText: "Acme AI" }).click();
    await actionButton(create, "Create").click();
    const shown = dialog(page, "Your new ingestion key");
    await expect(shown.getByLabel("Token")).toHaveValue(/^eci_/);
    await settled(page);
    await shown.screenshot({ path: `${SHOTS}/ingest-key-token.png` });
    await actionButton(shown, "Done").click();
    await expect(shown).toBeHidden();
    const keyRow = page.getByRole("row").filter({ hasText: keyName });
    await expect(keyRow).toContainText("Acme AI");
    await expect(keyRow).toContainText("Active");
    await keyRow.getByRole("button", { name: `Revoke ingestion key ${keyName}` }).click();
    const confirm = dialog(page, "Revoke ingestion key");
    await actionButton(confirm, "Revoke").click();
    await expect(confirm).toBeHidden();
    await expect(keyRow).toContainText("Revoked");
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/ingest-keys.png` });
  } finally {
    const revoked = await page.request.delete(
      `${E2E.console}/v1/operator/operators/${encodeURIComponent(OPERATOR)}`,
      { headers: operatorAuth },
    );
    expect(revoked.ok(), `revoke: ${revoked.status()}`).toBe(true);
  }
});

test("a customer administrator sees no operator area and the operator API refuses them", async ({ page }) => {
  await signIn(page, ADMIN, "/");
  await expect(nav(page).getByText("Billing & Usage")).toBeVisible();
  await expect(nav(page).getByText("Webhooks")).toBeVisible();
  await expect(nav(page).getByText("Operator", { exact: true })).toHaveCount(0);
  await expect(nav(page).getByRole("link", { name: "Organizations" })).toHaveCount(0);
  await expect(nav(page).getByRole("link", { name: "Price Rules" })).toHaveCount(0);
  await expect(nav(page).getByRole("link", { name: "Ingestion Keys" })).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/customer-admin-sider.png` });

  // An operator page's address sends them home.
  await page.goto("/operator/organizations");
  await expect(page).toHaveURL(consoleAt("/"));

  const refused = await page.request.get(`${E2E.console}/v1/operator/organizations`, {
    headers: await sessionHeaders(page),
  });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error.code).toBe("forbidden");
});
