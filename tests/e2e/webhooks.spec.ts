import { expect, type Page, test } from "@playwright/test";
import { WEBHOOK_EVENT_ID_HEADER } from "../../contract/budgets";
import { actionButton, dialog, signIn, toast } from "./console";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

// Webhooks end to end: an administrator adds an endpoint pointing at a receiver this test runs,
// sees its signing secret once, sends a test event, the receiver gets it signed with that secret,
// and the delivery shows as succeeded in the endpoint's delivery log; a failing receiver's
// delivery shows its error and is retried from the log.

/** Opens the Add dialog (from whichever of its two buttons shows) with `url` filled in. */
async function openAddDialog(page: Page, url: string) {
  await page
    .getByRole("button", { name: /Add (Your First )?Endpoint/ })
    .first()
    .click();
  const add = dialog(page, "Add Webhook Endpoint");
  await add.getByLabel("Endpoint URL").fill(url);
  return add;
}

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => receiver?.close());

test("an administrator adds an endpoint, sees the secret once, and follows a signed test delivery", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const url = `${receiver.url}/e2e-${Date.now()}`;
  await signIn(page, "admin@acme.test", "/organization/webhooks");
  await expect(page.getByRole("heading", { name: "Webhooks" })).toBeVisible();

  const add = await openAddDialog(page, url);
  await add.getByLabel("Description").fill("End-to-end receiver");
  await actionButton(add, "Add Endpoint").click();

  // The secret, once.
  const shown = dialog(page, "signing secret");
  const secret = await shown.getByLabel("Signing secret", { exact: true }).inputValue();
  expect(secret).toMatch(/^whsec_/);
  await expect(shown.getByText("Shown only once")).toBeVisible();
  await actionButton(shown, "Done").click();
  await expect(page.getByText(secret)).toHaveCount(0);
  await page.screenshot({ path: "test-results/webhooks-list.png" });

  // The endpoint's page: no secret there, an empty log, then a test event.
  await page.getByRole("link", { name: url }).click();
  await expect(page).toHaveURL(/\/organization\/webhooks\/[0-9a-f-]{36}(\?|$)/);
  await expect(page.getByText("No deliveries yet")).toBeVisible();
  await expect(page.getByText(secret)).toHaveCount(0);
  await page.getByRole("button", { name: "Send test event" }).click();
  await expect(toast(page).getByText("Test event queued")).toBeVisible();

  const path = new URL(url).pathname;
  const [hit] = await receiver.waitFor(1, (r) => r.path === path);
  expect(hit?.json?.type).toBe("webhook.test");
  expect(receiver.verify(hit!, secret)).toMatchObject({ ok: true });

  const row = page
    .locator(".ant-table-tbody tr.ant-table-row")
    .filter({ hasText: String(hit?.headers[WEBHOOK_EVENT_ID_HEADER]) });
  await expect(row.getByText("Succeeded")).toBeVisible();
  await expect(row.getByText("HTTP 200")).toBeVisible();
  await expect(row.getByRole("cell", { name: "1", exact: true })).toBeVisible();
  await page.screenshot({ path: "test-results/webhooks-delivery-log.png", fullPage: true });
});

test("a failing receiver's delivery shows its answer, and a retry from the log succeeds", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const url = `${receiver.url}/failing-${Date.now()}`;
  const path = new URL(url).pathname;
  let down = true;
  receiver.setRespond((r) => (r.path === path && down ? 500 : 200));

  await signIn(page, "admin@acme.test", "/organization/webhooks");
  const add = await openAddDialog(page, url);
  await actionButton(add, "Add Endpoint").click();
  await actionButton(dialog(page, "signing secret"), "Done").click();
  await page.getByRole("link", { name: url }).click();
  await page.getByRole("button", { name: "Send test event" }).click();

  // The first attempt fails (HTTP 500); the log, refreshing itself while pending, says so.
  await receiver.waitFor(1, (r) => r.path === path);
  const row = page.locator(".ant-table-tbody tr.ant-table-row").first();
  await expect(row.getByText("HTTP 500")).toBeVisible();
  await expect(row.getByText("Pending")).toBeVisible();

  down = false;
  await row.getByRole("button", { name: /^Retry delivery/ }).click();
  await expect(toast(page).getByText("Delivery queued again")).toBeVisible();
  await expect(row.getByText("Succeeded")).toBeVisible({ timeout: 20_000 });
  await expect(row.getByText("HTTP 200")).toBeVisible();
  receiver.setRespond(() => 200);
});
