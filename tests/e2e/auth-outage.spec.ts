import { expect, type Page, type Route, test } from "@playwright/test";
import { E2E } from "../../playwright.config";
import { signIn } from "./console";

// Spec §4/§8: a failing refresh_token is retried 3 times (100, 200, 300 ms), then its error shows
// with a way to retry; the console neither hangs on "Loading..." nor floods the identity service.
const REFRESH = `${E2E.auth}/api/v1/refresh_token**`;
const PATH = "/account/settings";

/** `slowShell`: the console's code arrives only after the failing round has ended, as on a slow
 * machine or network; the outage must cost one round either way. */
type Failure = { name: string; fail: (route: Route) => Promise<void>; text: string; slowShell: boolean };

const failures: Failure[] = [
  {
    name: "answers 500",
    fail: (route) => route.fulfill({ status: 500, contentType: "text/plain", body: "boom" }),
    text: "500 Internal Server Error",
    slowShell: true,
  },
  {
    name: "cannot be reached",
    fail: (route) => route.abort("connectionrefused"),
    text: "Unable to process authentication response",
    slowShell: false,
  },
];

async function breakIdentity(page: Page, failure: Failure) {
  const state = { calls: 0, failing: true };
  if (failure.slowShell) {
    await page.route("**/assets/render-console-*.js", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await route.fallback();
    });
  }
  await page.route(REFRESH, async (route) => {
    state.calls += 1;
    if (state.failing) await failure.fail(route);
    else await route.fallback();
  });
  return state;
}

for (const failure of failures) {
  test(`the sign-in service ${failure.name}${failure.slowShell ? " before the console's code arrives" : ""}: its error shows, retries back off, Try again recovers`, async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    await signIn(page, "member@acme.test", PATH);
    await expect(page.getByRole("heading", { name: "Account Settings" })).toBeVisible();

    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    const identity = await breakIdentity(page, failure);

    await page.reload();
    await expect(page.getByText("Unable to reach the sign-in service")).toBeVisible();
    await expect(page.getByText(failure.text, { exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: "Try again" })).toBeVisible();
    // Still on the console (no bounce to the login page and back), no "Loading..." left behind.
    expect(page.url()).toBe(`${E2E.console}${PATH}`);
    await expect(page.getByText("Loading...")).toHaveCount(0);
    // One round: the request and its 3 retries.
    expect(identity.calls).toBe(4);

    // Over 5 s: at most one more automatic round (4 calls), not a storm.
    const before = identity.calls;
    await page.waitForTimeout(5_500);
    expect(identity.calls - before).toBeLessThanOrEqual(4);
    await page.screenshot({ path: `/tmp/auth-outage-${failure.text.slice(0, 3)}-1440.png` });
    expect(pageErrors).toEqual([]);

    // The service is back: Try again signs the tab in without a reload.
    identity.failing = false;
    await page.getByRole("button", { name: "Try again" }).click();
    await expect(page.getByRole("heading", { name: "Account Settings" })).toBeVisible();
    expect(page.url()).toBe(`${E2E.console}${PATH}`);
    expect(pageErrors).toEqual([]);
  });
}

test("narrow screens show the sign-in outage whole", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "member@acme.test", PATH);
  // The signed-in page's own refresh call must be done before the service breaks.
  await expect(page.getByRole("heading", { name: "Account Settings" })).toBeVisible();
  const identity = await breakIdentity(page, failures[0] as Failure);
  await page.reload();
  await expect(page.getByText("500 Internal Server Error", { exact: true })).toBeVisible();
  // Counted as soon as the error shows: the next automatic round starts 5 s later.
  expect(identity.calls).toBe(4);
  await expect(page.getByRole("button", { name: "Try again" })).toBeInViewport();
  await page.screenshot({ path: "/tmp/auth-outage-500-390.png" });
});

test("an auth URL that is not absolute reads 'Unable to initialize auth client' with the detail", async ({
  page,
}) => {
  // The server writes the configuration into the page: this page says the auth URL is relative.
  await page.route(`${E2E.console}/`, async (route) => {
    const response = await route.fetch();
    const html = await response.text();
    const written = /(<script type="application\/json" id="console-config">)(.*?)(<\/script>)/;
    expect(html).toMatch(written);
    const bad = JSON.stringify({
      apiUrl: E2E.console,
      authUrl: "auth.example.test",
      productName: "Eval Console",
    });
    await route.fulfill({
      response,
      body: html.replace(written, (_, open, _json, close) => open + bad + close),
    });
  });
  await page.goto("/");
  await expect(page.getByText("Unable to initialize auth client", { exact: true })).toBeVisible();
  await expect(page.getByText('config.json: "authUrl" is not an absolute URL')).toBeVisible();
  await expect(page.getByRole("button", { name: "Reload" })).toBeVisible();
  await page.screenshot({ path: "/tmp/auth-url-invalid-1280.png" });
});
