// The browser side of the console benchmarks: Debian's Chromium as the browser tests launch it
// (tests/e2e/chromium), and the demo administrator's sign-in on the hosted login page. Shared by console.ts,
// console-trace.ts, react-render.ts and package-profile.ts, so all of them measure the same browser
// signed in the same way, with the same data to list.
import { type Browser, chromium, type Page } from "@playwright/test";
import { CHROMIUM } from "../tests/e2e/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch(CHROMIUM);
}

/**
 * Opens the console at `api`, follows it to the hosted login page at `auth` and signs
 * admin@acme.test in with `password`; resolves back on the console's landing page.
 */
export async function signInAsAdmin(page: Page, at: { api: string; auth: string; password: string }) {
  await page.goto(`${at.api}/`);
  await page.waitForURL((u) => u.href.startsWith(`${at.auth}/login`), { timeout: 30_000 });
  await page.getByLabel("Email").fill("admin@acme.test");
  await page.getByLabel("Password").fill(at.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${at.api}/`, { timeout: 30_000 });
}

/**
 * The demo administrator has no personal API key, so the API Keys page would list none: makes one
 * unless one exists, through the identity service's client API with the page's session (the page
 * must be signed in, on the console).
 */
export async function ensurePersonalApiKey(page: Page, authUrl: string) {
  const made = await page.evaluate(async (auth) => {
    const base = `${auth}/api/fe/v3`;
    const init = { credentials: "include" as const, headers: { "X-CSRF-Token": "-.-" } };
    const list = await fetch(`${base}/personal_api_keys?page_number=0&page_size=1`, init);
    const { total_count } = (await list.json()) as { total_count: number };
    if (total_count > 0) return true;
    const created = await fetch(`${base}/api_keys`, {
      ...init,
      method: "POST",
      headers: { ...init.headers, "Content-Type": "application/json" },
      body: "{}",
    });
    return created.ok;
  }, authUrl);
  if (!made) throw new Error("could not make a personal API key for the API Keys page");
}
