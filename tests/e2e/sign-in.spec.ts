import { expect, type Page, test } from "@playwright/test";
import { E2E } from "../../playwright.config";

async function signIn(page: Page, email: string, path = "/") {
  await page.goto(path);
  // Unauthenticated: sent to our hosted sign-in page with a return target.
  await expect(page).toHaveURL(new RegExp(`^${E2E.auth}/login\\?rt=`));
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(E2E.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`^${E2E.console}/`));
}

const sidebarCookie = async (page: Page) =>
  (await page.context().cookies(E2E.console)).find((c) => c.name === "sidebar_state");

test("administrator signs in, sees the organization, toggles the sider and logs out", async ({ page }) => {
  await signIn(page, "admin@acme.test");
  await expect(page.getByText("Acme AI").first()).toBeVisible();
  await expect(page.getByRole("heading", { name: "Billing & Usage" })).toBeVisible();
  await page.screenshot({ path: "test-results/admin-console.png" });

  await page.keyboard.press("Control+b");
  await expect.poll(async () => (await sidebarCookie(page))?.value).toBe("false");
  const cookie = await sidebarCookie(page);
  const days = ((cookie?.expires ?? 0) - Date.now() / 1000) / 86400;
  expect(days).toBeGreaterThan(6.9);
  expect(days).toBeLessThanOrEqual(7.01);
  await page.screenshot({ path: "test-results/admin-collapsed.png" });
  await page.keyboard.press("Control+b");
  await expect.poll(async () => (await sidebarCookie(page))?.value).toBe("true");

  // The collapsed state survives a reload.
  await page.keyboard.press("Control+b");
  await page.reload();
  await expect(page.getByText("Acme AI").first()).toBeVisible();
  expect((await sidebarCookie(page))?.value).toBe("false");
  await page.keyboard.press("Control+b");

  await page.getByText("Logout", { exact: true }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByText("Confirm Logout")).toBeVisible();
  await expect(
    dialog.getByText(
      "Are you sure you want to logout? You will need to sign in again to access your account.",
    ),
  ).toBeVisible();
  await page.screenshot({ path: "test-results/logout-dialog.png" });
  await dialog.getByRole("button", { name: "Logout" }).click();
  await expect(page).toHaveURL(new RegExp(`^${E2E.auth}/login`));
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();

  // Signed out for real: the console sends us back to sign-in.
  await page.goto("/account/settings");
  await expect(page).toHaveURL(new RegExp(`^${E2E.auth}/login\\?rt=`));
});

test("a wrong password is refused on the hosted page with the email kept", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(new RegExp(`^${E2E.auth}/login`));
  await page.getByLabel("Email").fill("admin@acme.test");
  await page.getByLabel("Password").fill("definitely-wrong");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert")).toHaveText("Incorrect email or password.");
  await expect(page.getByLabel("Email")).toHaveValue("admin@acme.test");
  await page.screenshot({ path: "test-results/login-error.png" });
});

test("a member without a workspace sees the banner; a member is sent away from /", async ({
  page,
  context,
}) => {
  await signIn(page, "newcomer@acme.test", "/account/settings");
  await expect(page).toHaveURL(`${E2E.console}/account/settings`);
  await expect(page.getByText("No workspace assigned")).toBeVisible();
  await expect(page.getByText("Please contact your administrator to add you to a workspace.")).toBeVisible();
  await expect(page.getByText("Admins: admin@acme.test")).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveValue("newcomer@acme.test");
  await expect(page.getByLabel("Organization")).toHaveValue("Acme AI");
  await expect(page.getByLabel("Role")).toHaveValue("User");
  await page.screenshot({ path: "test-results/newcomer-banner.png" });

  await context.clearCookies();
  await page.evaluate(() => localStorage.clear());
  await signIn(page, "member@acme.test", "/");
  await expect(page).toHaveURL(`${E2E.console}/organization/workspaces`);
  await expect(page.getByText("No workspace assigned")).toHaveCount(0);
  await expect(page.getByText("Billing & Usage")).toHaveCount(0);
});
