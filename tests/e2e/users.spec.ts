import { expect, type Page, test } from "@playwright/test";
import { acceptInvitationAsNewUser } from "./accept-invitation";
import { actionButton, chooseOption, dialog, signIn, toast } from "./console";

// The Users page on the identity service's organization calls: an administrator invites someone
// who accepts from the emailed link, changes their role and removes them; a member only looks.

const row = (page: Page, email: string) => page.getByRole("row").filter({ hasText: email });
const members = (page: Page) => page.locator(".ant-card").filter({ hasText: "Members" }).first();
const invitations = (page: Page) => page.locator(".ant-card").filter({ hasText: "Pending invitations" });

async function search(page: Page, text: string) {
  await page.getByLabel("Search users by email").fill(text);
}

test("an administrator invites a user, who accepts from the email; then changes their role and removes them", async ({
  page,
  browser,
}) => {
  const invitee = `teammate-${Date.now()}@acme.test`;
  await signIn(page, "admin@acme.test", "/users");
  await expect(page.getByRole("heading", { name: "Users" })).toBeVisible();
  await expect(page.getByText("Manage organization users and permissions")).toBeVisible();
  await expect(row(page, "member@acme.test")).toBeVisible();
  await expect(row(page, "admin@acme.test").getByText("Admin", { exact: true })).toBeVisible();
  await page.screenshot({ path: "test-results/users-admin.png", fullPage: true });

  // Invite: the invitation is pending at once.
  await page.getByRole("button", { name: "Invite user" }).click();
  const invite = dialog(page, "Invite user");
  await invite.getByLabel("Email").fill(invitee);
  await actionButton(invite, "Send invitation").click();
  await expect(toast(page).getByText("Invitation sent")).toBeVisible();
  await expect(row(page, invitee)).toBeVisible();
  await expect(invitations(page).getByText(invitee)).toBeVisible();

  // An address already in the organization is refused in the identity service's words.
  await page.getByRole("button", { name: "Invite user" }).click();
  await invite.getByLabel("Email").fill("member@acme.test");
  await actionButton(invite, "Send invitation").click();
  await expect(toast(page).getByText("This user is already a member of the organization.")).toBeVisible();
  await invite.getByRole("button", { name: "Cancel" }).click();

  // The invitee opens the emailed link in a browser of their own, signs up and accepts.
  const { context } = await acceptInvitationAsNewUser(browser, invitee, { first: "Tess", last: "Teammate" });
  await context.close();

  // Back on the Users page the invitee is a member with their name, and no longer invited.
  await page.reload();
  await search(page, "teammate-");
  const added = members(page).getByRole("row").filter({ hasText: invitee });
  await expect(added).toBeVisible();
  await expect(added.getByText("Tess Teammate")).toBeVisible();
  await expect(added.getByText("Member", { exact: true })).toBeVisible();
  await expect(invitations(page).getByText(invitee)).toHaveCount(0);

  // Change role.
  await page.getByRole("button", { name: `Change role of ${invitee}` }).click();
  const change = dialog(page, "Change role");
  await chooseOption(page, change, "Admin");
  await actionButton(change, "Save role").click();
  await expect(toast(page).getByText(`${invitee} is now Admin.`)).toBeVisible();
  await expect(added.getByText("Admin", { exact: true })).toBeVisible();
  await page.screenshot({ path: "test-results/users-role-changed.png", fullPage: true });

  // Remove, after confirming.
  await page.getByRole("button", { name: `Remove ${invitee}` }).click();
  await expect(page.getByText(`Remove ${invitee} from the organization?`)).toBeVisible();
  await page.getByRole("button", { name: "Remove", exact: true }).click();
  await expect(toast(page).getByText("User removed")).toBeVisible();
  await expect(added).toHaveCount(0);
  await expect(members(page).getByText("No users found")).toBeVisible();
});

test("an administrator revokes a pending invitation after confirming", async ({ page }) => {
  const invitee = `revoked-${Date.now()}@acme.test`;
  await signIn(page, "admin@acme.test", "/users");
  await page.getByRole("button", { name: "Invite user" }).click();
  const invite = dialog(page, "Invite user");
  await invite.getByLabel("Email").fill(invitee);
  await actionButton(invite, "Send invitation").click();
  await expect(invitations(page).getByText(invitee)).toBeVisible();
  await page.getByRole("button", { name: `Revoke the invitation of ${invitee}` }).click();
  await page.getByRole("button", { name: "Revoke", exact: true }).click();
  await expect(toast(page).getByText("Invitation revoked")).toBeVisible();
  await expect(invitations(page).getByText(invitee)).toHaveCount(0);
});

test("a member sees the organization's users read-only", async ({ page }) => {
  await signIn(page, "member@acme.test", "/users");
  await expect(page.getByRole("heading", { name: "Users" })).toBeVisible();
  await expect(row(page, "admin@acme.test")).toBeVisible();
  await expect(row(page, "member@acme.test")).toBeVisible();
  await expect(page.getByText("Only administrators can invite, change roles or remove users.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Invite user" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Change role of / })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Remove / })).toHaveCount(0);
  await expect(page.getByText("Pending invitations")).toHaveCount(0);
  await page.screenshot({ path: "test-results/users-member.png", fullPage: true });
});

test("while the page loads, the lists never show an empty answer and nothing jumps", async ({ page }) => {
  // The layout shift from the first render, and whether "No users found" showed before the rows.
  await page.addInitScript(() => {
    const w = window as unknown as { layoutShift: number; emptyBeforeRows: boolean };
    w.layoutShift = 0;
    w.emptyBeforeRows = false;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
        if (!entry.hadRecentInput) w.layoutShift += entry.value;
    }).observe({ type: "layout-shift", buffered: true });
    new MutationObserver(() => {
      const rows = document.querySelector(".ant-table-tbody tr.ant-table-row");
      if (!rows && document.body.textContent?.includes("No users found")) w.emptyBeforeRows = true;
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
  // The members answer slowly, as on a busy identity service; the invitations below them do not.
  await page.route("**/org_membership/*/members?**", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await route.continue();
  });
  await signIn(page, "admin@acme.test", "/users");
  await expect(row(page, "member@acme.test")).toBeVisible();
  await expect(page.getByRole("button", { name: "Remove member@acme.test" })).toBeVisible();
  await expect(invitations(page).getByRole("columnheader", { name: "Expires" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Invite user" })).toBeVisible();
  const { layoutShift, emptyBeforeRows } = await page.evaluate(() => {
    const w = window as unknown as { layoutShift: number; emptyBeforeRows: boolean };
    return { layoutShift: w.layoutShift, emptyBeforeRows: w.emptyBeforeRows };
  });
  expect(emptyBeforeRows).toBe(false);
  // Each block shows where it stays, so nothing should move at all: far below "good" (0.1), which
  // the page nearly reached (0.099 here) when the members pushed the invitations down and the
  // columns resized to their content.
  expect(layoutShift).toBeLessThan(0.01);
  console.log(`Users page layout shift while loading: ${layoutShift.toFixed(4)}`);
});
