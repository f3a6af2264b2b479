// A first visit's landing page code comes while the console's own is on its way (src/lib/landing-page-code.ts):
// the shell holds the routes, so without the build's list the page's code could only be asked for
// once the shell had arrived and run. Routing turns the browser's cache off, so each visit here
// fetches every file, as a first visit does.
import { expect, test } from "@playwright/test";
import { PAGE_CODE_ID } from "../../src/lib/landing-page-code";
import { signIn } from "./console";

const SHELL = /\/assets\/render-console-[^/]+\.js$/;

for (const path of ["/", "/eval-runs"]) {
  test(`a first visit to ${path} fetches its page's code while the console's own is still on its way`, async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await signIn(page, "admin@acme.test", path);
    // The signed-in visit is over (its requests made) before this one's are watched.
    const row = page.locator(".ant-table-tbody tr.ant-table-row").first();
    await expect(row).toBeVisible();
    // The page's own file: the first of its files in the build's list (scripts/page-code.ts), as
    // the bundler named it (a merged chunk may carry another module's name).
    const pageFile = await page.evaluate(
      ({ id, route }) => (JSON.parse(document.getElementById(id)?.textContent ?? "{}")[route] ?? [])[0],
      { id: PAGE_CODE_ID, route: path },
    );
    expect(pageFile, "the build lists the page's files").toMatch(/^\/assets\/.+\.js$/);
    const seen: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === pageFile) seen.push("page asked");
    });
    // The shell's code is held back 2 s: whatever asks for the page's code meanwhile is not the shell.
    await page.route(SHELL, async (route) => {
      seen.push("shell asked");
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      seen.push("shell sent");
      await route.fallback();
    });
    await page.goto(path);
    await expect(row).toBeVisible();
    expect(seen.indexOf("page asked"), seen.join(", ")).toBeGreaterThanOrEqual(0);
    expect(seen.indexOf("page asked"), seen.join(", ")).toBeLessThan(seen.indexOf("shell sent"));
  });
}

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
