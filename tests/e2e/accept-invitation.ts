import { type Browser, expect } from "@playwright/test";
import { E2E } from "../../playwright.config";
import { mailedLink } from "./mailbox";

/**
 * The invitee, in a browser of their own, opens the emailed invitation link, signs up with their
 * name, confirms their email (the confirmation link brings them back to the invitation, signed
 * in) and accepts; they land in the console. Their page stays open for more checks: close
 * `context` when done.
 */
export async function acceptInvitationAsNewUser(
  browser: Browser,
  invitee: string,
  name: { first: string; last: string },
) {
  await expect.poll(() => mailedLink(invitee, "/accept_invite"), { timeout: 15_000 }).not.toBeNull();
  const link = mailedLink(invitee, "/accept_invite") as string;
  expect(link.startsWith(`${E2E.auth}/accept_invite?id=`)).toBe(true);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Join Acme AI" })).toBeVisible();
  await page.getByRole("link", { name: "Create an account" }).click();
  await page.getByLabel("First name").fill(name.first);
  await page.getByLabel("Last name").fill(name.last);
  await page.getByLabel("Email").fill(invitee);
  await page.getByLabel("Password").fill("a-new-password-1");
  await page.getByRole("button", { name: "Sign up" }).click();
  // A new account confirms its email first.
  await expect(page.getByRole("heading", { name: "Confirm your email" })).toBeVisible();
  await expect.poll(() => mailedLink(invitee, "/confirm_email"), { timeout: 15_000 }).not.toBeNull();
  await page.goto(mailedLink(invitee, "/confirm_email") as string);
  await expect(page).toHaveURL(link);
  await page.getByRole("button", { name: "Accept invitation" }).click();
  await expect(page).toHaveURL(new RegExp(`^${E2E.console}/`));
  return { context, page };
}
