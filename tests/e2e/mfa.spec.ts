import { expect, type Page, test } from "@playwright/test";
import * as OTPAuth from "otpauth";
import { E2E } from "../../playwright.config";
import { mailedLink } from "./mailbox";

// A user of its own, made through the hosted sign-up, so no other test meets its MFA.
const EMAIL = `mfa-${Date.now()}@e2e.test`;
// A code is accepted once: signing in right after turning MFA on uses the next step's code.
const code = (secret: string, aheadSeconds = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + aheadSeconds * 1000,
  });

async function passwordStep(page: Page) {
  await page.goto("/");
  await expect(page).toHaveURL(new RegExp(`^${E2E.auth}/login\\?rt=`));
  await page.getByLabel("Email").fill(EMAIL);
  await page.getByLabel("Password").fill(E2E.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("a user turns on MFA on the hosted account page, then signs in with password + TOTP", async ({
  page,
}) => {
  await page.goto(`${E2E.auth}/signup`);
  await page.getByLabel("Email").fill(EMAIL);
  await page.getByLabel("Password").fill(E2E.password);
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByRole("heading", { name: "Confirm your email" })).toBeVisible();
  await expect.poll(() => mailedLink(EMAIL, "/confirm_email"), { timeout: 15_000 }).not.toBeNull();
  await page.goto(mailedLink(EMAIL, "/confirm_email") as string);

  await page.goto(`${E2E.auth}/account`);
  await expect(page.getByRole("heading", { name: "Two-factor authentication" })).toBeVisible();
  await expect(page.getByAltText("QR code for your authenticator app")).toBeVisible();
  const secret = (await page.getByTestId("mfa-secret").textContent())?.trim() ?? "";
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await page.screenshot({ path: "test-results/mfa-account-setup.png", fullPage: true });
  await page.getByLabel("Code from the app").fill(code(secret));
  await page.getByRole("button", { name: "Turn on two-factor authentication" }).click();
  await expect(page.getByRole("status")).toHaveText("Two-factor authentication is on.");
  await expect(page.getByLabel("Backup codes").locator("span")).toHaveCount(10);
  await page.screenshot({ path: "test-results/mfa-account-enabled.png", fullPage: true });

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(new RegExp(`^${E2E.auth}/login`));

  await passwordStep(page);
  await expect(page).toHaveURL(new RegExp(`^${E2E.auth}/login/mfa`));
  await expect(page.getByRole("link", { name: "Use a backup code instead" })).toBeVisible();
  await page.getByLabel("Authentication code").fill("000000");
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByText("The code is not correct.").first()).toBeVisible();
  await page.screenshot({ path: "test-results/mfa-login-step.png" });
  await page.getByLabel("Authentication code").fill(code(secret, 30));
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(new RegExp(`^${E2E.console}/`));
  await expect(page.getByText("No workspace assigned")).toBeVisible();
});
