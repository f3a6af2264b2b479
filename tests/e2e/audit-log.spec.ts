import { readFile } from "node:fs/promises";
import { expect, type Page, test } from "@playwright/test";
import Papa from "papaparse";
import { AUDIT_CSV_HEADERS } from "../../contract/audit-log-csv";
import { actionButton, chooseOption, consoleAt, dialog, signIn, toast } from "./console";

// The audit trail end to end: an administrator's changes in the console (a workspace, an
// invitation, an API key, a role) show on the Audit Log page with actor and target, the action
// filter narrows it, the CSV export carries the same entries, and a member cannot open the page.

const entries = (page: Page) => page.locator(".ant-table-tbody tr.ant-table-row");
const entry = (page: Page, action: string, target: string) =>
  entries(page).filter({ hasText: action }).filter({ hasText: target });

test("an administrator's changes show in the Audit Log, filter by action and export as CSV", async ({
  page,
}) => {
  // Four changes through the console, then the log: longer than one page's default budget.
  test.setTimeout(180_000);
  const stamp = Date.now();
  const workspace = `Audit Lab ${stamp}`;
  const invitee = `audited-${stamp}@acme.test`;

  // A workspace.
  await signIn(page, "admin@acme.test", "/organization/workspaces");
  await page.getByRole("button", { name: "Create Workspace", exact: false }).click();
  const create = dialog(page, "Create Workspace");
  await create.getByLabel("Workspace Name").fill(workspace);
  await actionButton(create, "Create").click();
  await expect(page.getByText(workspace)).toBeVisible();

  // An invitation, and a role change (newcomer to Admin and back, so other tests keep their member).
  await page.goto("/users");
  await page.getByRole("button", { name: "Invite user" }).click();
  const invite = dialog(page, "Invite user");
  await invite.getByLabel("Email").fill(invitee);
  await actionButton(invite, "Send invitation").click();
  await expect(toast(page).getByText("Invitation sent")).toBeVisible();
  for (const role of ["Admin", "Member"]) {
    await page.getByRole("button", { name: "Change role of newcomer@acme.test" }).click();
    const change = dialog(page, "Change role");
    await chooseOption(page, change, role);
    await actionButton(change, "Save role").click();
    await expect(toast(page).getByText(`newcomer@acme.test is now ${role}.`)).toBeVisible();
    await toast(page).first().waitFor({ state: "detached" });
  }

  // A personal API key.
  await page.goto("/account/api-keys");
  await page.getByRole("button", { name: "Create API Key" }).click();
  await actionButton(dialog(page, "Create API Key"), "Create").click();
  const shown = dialog(page, "Your new API key");
  await expect(shown).toBeVisible();
  const keyId = (await shown.textContent())?.match(/[0-9a-f]{32}/)?.[0];
  await shown
    .getByRole("button", { name: /close|done/i })
    .first()
    .click();

  // The Audit Log, reached from the sider, shows each with its actor and target.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit Log" }).click();
  await expect(page).toHaveURL(consoleAt("/organization/audit-log"));
  await expect(page.getByRole("heading", { name: "Audit Log" })).toBeVisible();
  await expect(entry(page, "workspace.created", workspace)).toContainText("admin@acme.test");
  await expect(entry(page, "invitation.created", invitee)).toContainText("admin@acme.test");
  await expect(entry(page, "org_user.role_changed", "newcomer@acme.test").first()).toContainText(
    "role: Admin → Member",
  );
  await expect(entry(page, "org_user.role_changed", "newcomer@acme.test").nth(1)).toContainText(
    "role: Member → Admin",
  );
  if (keyId) await expect(entry(page, "api_key.created", keyId)).toContainText("admin@acme.test");
  else await expect(entries(page).filter({ hasText: "api_key.created" }).first()).toBeVisible();
  await page.screenshot({ path: "test-results/audit-log-admin.png", fullPage: true });

  // Filter by action in the Action column's filter, choosing with the keyboard: only role changes
  // are left, and the filter is in the address.
  await page
    .getByRole("columnheader", { name: /Action/ })
    .getByRole("button")
    .click();
  await page.getByRole("combobox", { name: "Action" }).click();
  await page.keyboard.type("Organization user role");
  await page.keyboard.press("Enter");
  // A click on the panel beside the select closes its list, which covers the Filter button.
  await page.locator(".ant-table-filter-dropdown").click({ position: { x: 4, y: 4 } });
  await page.getByRole("button", { name: /^(filter )?Filter$/ }).click();
  await expect(page).toHaveURL(/filters\[\d\]\[field\]=action/);
  await expect(entries(page).filter({ hasText: "workspace.created" })).toHaveCount(0);
  await expect(entries(page).filter({ hasText: "org_user.role_changed" })).toHaveCount(2);

  // The CSV export has the filtered entries in the contract's columns.
  const downloading = page.waitForEvent("download");
  await page.getByRole("button", { name: /Export CSV/ }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^audit_log_\d{4}-\d{2}-\d{2}\.csv$/);
  const rows = Papa.parse<string[]>((await readFile((await download.path()) as string, "utf8")).trim()).data;
  expect(rows[0]).toEqual([...AUDIT_CSV_HEADERS]);
  expect(rows.slice(1).map((r) => [r[1], r[2], r[8]])).toEqual([
    ["org_user.role_changed", "admin@acme.test", "newcomer@acme.test"],
    ["org_user.role_changed", "admin@acme.test", "newcomer@acme.test"],
  ]);

  // Without the filter the export also carries the workspace, the invitation and the key.
  await page.getByRole("button", { name: "Reset" }).click();
  await expect(entries(page).filter({ hasText: "workspace.created" }).first()).toBeVisible();
  const all = page.waitForEvent("download");
  await page.getByRole("button", { name: /Export CSV/ }).click();
  const text = await readFile((await (await all).path()) as string, "utf8");
  for (const needle of [workspace, invitee, "api_key.created"]) expect(text).toContain(needle);
});

test("a member has no Audit Log: no sider entry, and its address sends them home", async ({ page }) => {
  await signIn(page, "member@acme.test", "/organization/workspaces");
  await expect(page.getByRole("heading", { name: "Manage Workspaces" })).toBeVisible();
  await expect(
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit Log" }),
  ).toHaveCount(0);
  await page.goto("/organization/audit-log");
  await expect(page).toHaveURL(consoleAt("/organization/workspaces"));
  await expect(page.getByRole("heading", { name: "Audit Log" })).toHaveCount(0);
  await page.screenshot({ path: "test-results/audit-log-member.png", fullPage: true });
});
