import { expect, test } from "@playwright/test";
import { E2E } from "../../playwright.config";
import { acceptInvitationAsNewUser } from "./accept-invitation";

test("an administrator invites a new member who signs up from the emailed link", async ({
  page,
  browser,
}) => {
  const invitee = `newbie-${Date.now()}@acme.test`;

  // The administrator signs in through the console, then opens the hosted organization page.
  await page.goto("/");
  await page.getByLabel("Email").fill("admin@acme.test");
  await page.getByLabel("Password").fill(E2E.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`^${E2E.console}/`));
  const refresh = await page.request.get(`${E2E.auth}/api/v1/refresh_token`);
  const orgs = (await refresh.json()).org_id_to_org_member_info as Record<string, { org_name: string }>;
  const acme = Object.values(orgs).find((o) => o.org_name === "Acme AI") as unknown as { org_id: string };
  await page.goto(`${E2E.auth}/org?id=${acme.org_id}`);
  await expect(page.getByRole("heading", { name: "Acme AI" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "member@acme.test", exact: true })).toBeVisible();

  await page.getByLabel("Email to invite").fill(invitee);
  await page.getByLabel("Role to invite as").selectOption("Member");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByRole("status")).toHaveText("Invitation sent.");
  await expect(page.getByRole("cell", { name: invitee, exact: true })).toBeVisible();
  await page.screenshot({ path: "test-results/org-page.png", fullPage: true });

  // A refused invitation is explained in place, with what was typed kept.
  await page.getByLabel("Email to invite").fill("member@acme.test");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByRole("alert")).toContainText("already a member");
  await expect(page.getByLabel("Email to invite")).toHaveValue("member@acme.test");

  // The invitee, in a browser of their own, signs up from the emailed link and accepts.
  const { context, page: other } = await acceptInvitationAsNewUser(browser, invitee, {
    first: "Nia",
    last: "Newbie",
  });
  await expect(other.getByText("Acme AI").first()).toBeVisible();
  const mine = await other.request.get(`${E2E.auth}/api/v1/refresh_token`);
  const info = Object.values((await mine.json()).org_id_to_org_member_info) as {
    org_name: string;
    user_role: string;
  }[];
  expect(info).toEqual([expect.objectContaining({ org_name: "Acme AI", user_role: "Member" })]);
  await other.screenshot({ path: "test-results/invitee-console.png" });
  await context.close();

  // Back on the organization page the invitee is a member and the invitation is gone.
  await page.goto(`${E2E.auth}/org?id=${acme.org_id}&q=newbie`);
  await expect(page.getByRole("cell", { name: invitee, exact: true })).toHaveCount(1);
  await expect(page.getByRole("button", { name: `Remove ${invitee}` })).toBeVisible();
});
