import { expect, type Locator, type Page } from "@playwright/test";
import { E2E } from "../../playwright.config";

/**
 * Signs `email` in and opens `path`. The hosted form is posted as the sign-in page posts it (from
 * the identity service's own origin), in the page's own cookie jar, then `path` is opened: a test
 * that needs a signed-in console starts there without loading the console twice and the sign-in
 * page between (about 2.5 s a test). Signing in through the page itself, its redirects and its
 * return target are the subject of sign-in.spec.ts, mfa.spec.ts and the invitation specs.
 */
export async function signIn(page: Page, email: string, path: string) {
  const login = await page.request.post(`${E2E.auth}/login`, {
    form: { email, password: E2E.password },
    headers: { origin: E2E.auth },
    maxRedirects: 0,
  });
  expect(login.status(), `sign-in of ${email}`).toBe(303);
  await page.goto(path);
  await expect(page).toHaveURL(consoleAt(path));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The console's address of `path`, with or without a query: a page whose table keeps its state in
 * the URL writes its default view there once it renders, so an exact match would race that write.
 */
export const consoleAt = (path: string) => new RegExp(`^${escapeRegExp(`${E2E.console}${path}`)}(\\?|$)`);

// antd keeps its spinner icon (aria-label "loading") inside a button for a moment after a
// request ends, which changes the button's accessible name; match the label either way.
export const actionButton = (scope: Locator, label: string) =>
  scope.getByRole("button", { name: new RegExp(`^(loading )?${label}$`) });

export const dialog = (page: Page, title: string) => page.getByRole("dialog").filter({ hasText: title });
export const toast = (page: Page) => page.locator(".ant-notification-notice");

/**
 * Picks `option` in the antd select inside `scope` and waits until it shows as chosen with its
 * dropdown closed. A click that lands while the dropdown is still opening can leave it open over
 * the dialog's buttons with nothing chosen, so the whole gesture is retried until it holds.
 */
export async function chooseOption(page: Page, scope: Locator, option: string) {
  const open = page.locator(".ant-select-dropdown:visible");
  await expect(async () => {
    if ((await open.count()) === 0) await scope.locator(".ant-select-selector").click();
    await open.locator(`.ant-select-item-option[title="${option}"]`).click({ timeout: 2_000 });
    await expect(scope.locator(".ant-select-selection-item")).toHaveText(option, { timeout: 1_000 });
    await expect(open).toHaveCount(0, { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
}

/** Headers that call the API as the signed-in page does: with its access token. */
export async function sessionHeaders(page: Page) {
  const auth = await page.request.get(`${E2E.auth}/api/v1/refresh_token`, {
    headers: { "Content-Type": "application/json" },
  });
  expect(auth.ok()).toBe(true);
  return { Authorization: `Bearer ${(await auth.json()).access_token as string}` };
}
