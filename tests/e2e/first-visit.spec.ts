// A first visit: its first call is the session refresh, the configuration being in the page.
import { expect, test } from "@playwright/test";
import { signIn } from "./console";

test("a visit's first call is the session refresh: the configuration comes in the page", async ({ page }) => {
  await signIn(page, "admin@acme.test", "/organization/workspaces");
  await expect(page.locator(".ant-col .ant-card").first()).toBeVisible();
  const calls: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (request.resourceType() === "fetch" || url.pathname.endsWith(".json")) calls.push(url.pathname);
  });
  await page.reload();
  await expect(page.locator(".ant-col .ant-card").first()).toBeVisible();
  expect(calls).not.toContain("/config.json");
  expect(calls[0], calls.join(", ")).toBe("/api/v1/refresh_token");
  // The page's own calls follow, with the addresses the configuration gave.
  expect(calls).toContain("/v1/workspaces/");
});
