import { expect, test } from "@playwright/test";
import { E2E } from "../../playwright.config";
import { actionButton, dialog, signIn, toast } from "./console";

test("a key is created, shown once, copied, found by search and deleted", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: E2E.console });
  await signIn(page, "member@acme.test", "/account/api-keys");
  await expect(page.getByRole("heading", { name: "Personal API Keys" })).toBeVisible();
  await expect(page.getByPlaceholder("Search by Key ID")).toBeVisible();
  for (const header of ["Key ID", "Created", "Expires", "Actions"]) {
    await expect(page.getByRole("columnheader", { name: header, exact: true })).toBeVisible();
  }
  await expect(page.getByRole("button", { name: "Refresh" })).toBeVisible();
  await expect(page.getByText(/^Showing page 1 of \d+ \(\d+ total\)$/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Previous", exact: true })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Next", exact: true })).toBeVisible();

  await page.getByRole("button", { name: "Create API Key" }).click();
  const create = dialog(page, "Create API Key");
  // The expiry select is chosen, with the cursor in it: the keyboard opens it at once.
  await expect(create.locator(".ant-select-selection-item")).toHaveText("One year");
  await expect(create.getByRole("combobox")).toBeFocused();
  await create.locator(".ant-select-selector").click();
  for (const label of ["Two weeks", "One month", "Three months", "Six months", "One year"]) {
    await expect(page.locator(".ant-select-item-option", { hasText: label })).toBeVisible();
  }
  await page.locator(".ant-select-item-option", { hasText: "Three months" }).click();
  await page.screenshot({ path: "test-results/api-keys-create-dialog.png" });
  await actionButton(create, "Create").click();

  const shown = dialog(page, "Your new API key");
  await expect(shown).toBeVisible();
  await expect(shown.getByText("Sensitive", { exact: true })).toBeVisible();
  await expect(shown.getByText(/shown only once/)).toBeVisible();
  const keyId = await shown.getByRole("textbox", { name: "Key ID", exact: true }).inputValue();
  const token = await shown.getByRole("textbox", { name: "API Key", exact: true }).inputValue();
  expect(keyId).not.toBe("");
  expect(token.length).toBeGreaterThan(keyId.length);
  await page.screenshot({ path: "test-results/api-keys-new-key.png" });

  await shown.getByRole("button", { name: "Copy API Key" }).click();
  await expect(toast(page).getByText("Copied API Key", { exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  await shown.getByRole("button", { name: "Copy Key ID" }).click();
  await expect(toast(page).getByText("Copied Key ID", { exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(keyId);

  // The token works against the product API.
  const mine = await page.request.get(`${E2E.console}/v1/workspaces/my-workspace`, {
    headers: { "x-api-key": token },
  });
  expect(mine.status()).toBe(200);
  expect((await mine.json()).name).toBe("Safety Research");

  // Closing forgets the token: it is nowhere on the page any more.
  await shown.getByRole("button", { name: "Done" }).click();
  await expect(shown).toBeHidden();
  expect(await page.content()).not.toContain(token);
  const row = page.getByRole("row", { name: new RegExp(keyId) });
  await expect(row).toBeVisible();

  // Search by key id (debounced); a miss shows the empty state.
  await page.getByPlaceholder("Search by Key ID").fill(keyId.slice(0, 8));
  await expect(row).toBeVisible();
  await expect(page.getByText(/^Showing page 1 of 1 \(\d+ total\)$/)).toBeVisible();
  await page.getByPlaceholder("Search by Key ID").fill("no-such-key-anywhere");
  await expect(page.getByText("No API keys found", { exact: true })).toBeVisible();
  await expect(page.getByText("Showing page 1 of 1 (0 total)", { exact: true })).toBeVisible();
  await page.screenshot({ path: "test-results/api-keys-empty-search.png", fullPage: true });
  await page.getByPlaceholder("Search by Key ID").fill(keyId);
  await expect(row).toBeVisible();
  await page.screenshot({ path: "test-results/api-keys-list.png", fullPage: true });

  // Delete after confirmation; the key stops working.
  await row.getByRole("button", { name: `Delete API key ${keyId}` }).click();
  const confirm = dialog(page, "Delete API Key");
  await expect(confirm).toBeVisible();
  await actionButton(confirm, "Delete").click();
  await expect(page.getByText("No API keys found", { exact: true })).toBeVisible();
  const after = await page.request.get(`${E2E.console}/v1/workspaces/my-workspace`, {
    headers: { "x-api-key": token },
  });
  expect(after.status()).toBe(401);
});
