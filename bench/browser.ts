// The browser side of the console benchmarks: Debian's Chromium as the browser tests launch it
// (tests/e2e/chromium), and the demo administrator's sign-in on the hosted login page. Shared by console.ts,
// console-trace.ts and react-render.ts, so all three measure the same browser signed in the same way.
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
