import { expect, type Page, test } from "@playwright/test";
import { E2E } from "../../playwright.config";
import { actionButton, dialog, signIn, toast } from "./console";

const card = (page: Page, name: string) => page.getByRole("article", { name, exact: true });

test("an administrator creates, renames and deletes a workspace and manages its members", async ({
  page,
}) => {
  await signIn(page, "admin@acme.test", "/organization/workspaces");
  await expect(page.getByRole("heading", { name: "Manage Workspaces" })).toBeVisible();
  for (const name of ["Safety Research", "Red Team", "Accuracy Benchmarks"]) {
    await expect(card(page, name)).toBeVisible();
  }
  await expect(page.getByText("Current", { exact: true })).toHaveCount(1);
  await expect(card(page, "Red Team").getByText("Active", { exact: true })).toBeVisible();
  await expect(card(page, "Red Team").getByText("Acme AI", { exact: true })).toBeVisible();
  await expect(card(page, "Red Team").getByText("View Workspace Details", { exact: true })).toBeVisible();
  await page.screenshot({ path: "test-results/workspaces-admin.png", fullPage: true });

  // The dialogs' forms are built when they first open, not with the list.
  await expect(page.getByLabel("Workspace Name")).toHaveCount(0);
  // Create: disabled while blank; the name is trimmed.
  await page.getByRole("button", { name: "Create Workspace", exact: false }).click();
  const create = dialog(page, "Create Workspace");
  const createButton = actionButton(create, "Create");
  await expect(createButton).toBeDisabled();
  // The cursor is in the name field: a keyboard user types at once.
  await expect(create.getByLabel("Workspace Name")).toBeFocused();
  await page.keyboard.type("   ");
  await expect(create.getByLabel("Workspace Name")).toHaveValue("   ");
  await expect(createButton).toBeDisabled();
  await create.getByLabel("Workspace Name").fill("  E2E Lab  ");
  await page.screenshot({ path: "test-results/workspaces-create-dialog.png" });
  await createButton.click();
  await expect(card(page, "E2E Lab")).toBeVisible();
  await expect(card(page, "E2E Lab").getByText("0 members")).toBeVisible();

  // A duplicate name is refused with the spec's message and the server's reason.
  await page.getByRole("button", { name: "Create Workspace", exact: false }).click();
  await create.getByLabel("Workspace Name").fill("Red Team");
  await createButton.click();
  await expect(
    toast(page).getByText("Failed to create workspace. Please try again.", { exact: true }),
  ).toBeVisible();
  await page.screenshot({ path: "test-results/workspaces-duplicate.png" });
  await create.getByRole("button", { name: "Cancel" }).click();

  // Rename: Update stays disabled until the name really changes.
  await page.getByRole("button", { name: "Edit workspace E2E Lab" }).click();
  const edit = dialog(page, "Edit Workspace");
  await expect(edit.getByLabel("Workspace Name")).toHaveValue("E2E Lab");
  await expect(edit.getByLabel("Workspace Name")).toBeFocused();
  const update = actionButton(edit, "Update");
  await expect(update).toBeDisabled();
  await edit.getByLabel("Workspace Name").fill("E2E Lab ");
  await expect(update).toBeDisabled();
  await edit.getByLabel("Workspace Name").fill("");
  await expect(update).toBeDisabled();
  await edit.getByLabel("Workspace Name").fill("E2E Renamed");
  await expect(update).toBeEnabled();
  await update.click();
  await expect(card(page, "E2E Renamed")).toBeVisible();
  await expect(card(page, "E2E Lab")).toHaveCount(0);

  // Details and members.
  await card(page, "E2E Renamed").getByRole("link", { name: "View Workspace Details" }).click();
  await expect(page).toHaveURL(/\/workspace\/[0-9a-f-]+$/);
  const uuid = page.url().split("/").pop() ?? "";
  // The address changes before the details page replaces the list, whose closed (hidden) dialogs
  // also hold a "Workspace Name" label for a moment: the label looked for is the one on screen.
  for (const label of ["Workspace Name", "Organization", "Workspace ID", "Workspace Members"]) {
    await expect(page.getByText(label, { exact: true }).filter({ visible: true })).toBeVisible();
  }
  await expect(page.getByText(uuid, { exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "View Dashboard" })).toHaveAttribute("href", "/");
  const addMember = page.getByRole("button", { name: "Add Member" });
  await expect(addMember).toBeDisabled();
  await page.getByRole("combobox", { name: "User to add" }).click();
  await page.locator(".ant-select-item-option", { hasText: "member@acme.test" }).click();
  await expect(addMember).toBeEnabled();
  await addMember.click();
  const row = page.getByRole("row", { name: /member@acme\.test/ });
  await expect(row).toBeVisible();
  await expect(row.getByText("Member", { exact: true })).toBeVisible();
  // A member is no longer offered.
  await page.getByRole("combobox", { name: "User to add" }).click();
  await expect(page.locator(".ant-select-item-option", { hasText: "member@acme.test" })).toHaveCount(0);
  await page.keyboard.press("Escape");
  await page.screenshot({ path: "test-results/workspace-details.png", fullPage: true });

  await row.getByRole("button", { name: "Remove member@acme.test" }).click();
  await page.getByRole("tooltip").getByRole("button", { name: "Remove" }).click();
  await expect(page.getByRole("row", { name: /member@acme\.test/ })).toHaveCount(0);

  await page.getByRole("link", { name: "Back to Workspaces" }).click();
  await expect(page).toHaveURL(`${E2E.console}/organization/workspaces`);

  // Delete after confirmation; the workspace disappears and its page says so.
  await page.getByRole("button", { name: "Delete workspace E2E Renamed" }).click();
  const confirm = dialog(page, "Delete Workspace");
  await expect(confirm).toBeVisible();
  await page.screenshot({ path: "test-results/workspaces-delete-dialog.png" });
  await actionButton(confirm, "Delete").click();
  await expect(card(page, "E2E Renamed")).toHaveCount(0);

  await page.goto(`/workspace/${uuid}`);
  await expect(page.getByText("Workspace not found", { exact: true })).toBeVisible();
  await page.screenshot({ path: "test-results/workspace-not-found.png" });
  await page.getByRole("link", { name: "Back to Workspaces" }).click();
  await expect(page).toHaveURL(`${E2E.console}/organization/workspaces`);
});

test("a member sees their workspace without management controls", async ({ page }) => {
  await signIn(page, "member@acme.test", "/organization/workspaces");
  await expect(page.getByRole("heading", { name: "Manage Workspaces" })).toBeVisible();
  const mine = card(page, "Safety Research");
  await expect(mine).toBeVisible();
  await expect(mine.getByText("Current", { exact: true })).toBeVisible();
  await expect(mine.getByText("Active", { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: /Create/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Edit workspace|Delete workspace/ })).toHaveCount(0);
  await expect(page.getByText("View Workspace Details")).toHaveCount(0);
  await page.screenshot({ path: "test-results/workspaces-member.png", fullPage: true });
});

test("a member loses a workspace at once when an administrator deletes it", async ({ page, browser }) => {
  await signIn(page, "admin@acme.test", "/organization/workspaces");
  await page.getByRole("button", { name: "Create Workspace", exact: false }).click();
  const create = dialog(page, "Create Workspace");
  await create.getByLabel("Workspace Name").fill("Lab For Nia");
  await actionButton(create, "Create").click();
  await card(page, "Lab For Nia").getByRole("link", { name: "View Workspace Details" }).click();
  await page.getByRole("combobox", { name: "User to add" }).click();
  await page.locator(".ant-select-item-option", { hasText: "newcomer@acme.test" }).click();
  await page.getByRole("button", { name: "Add Member" }).click();
  await expect(page.getByRole("row", { name: /newcomer@acme\.test/ })).toBeVisible();

  // The newcomer, in a browser of their own, now has a workspace and no banner.
  const other = await (await browser.newContext()).newPage();
  await signIn(other, "newcomer@acme.test", "/organization/workspaces");
  await expect(card(other, "Lab For Nia").getByText("Current", { exact: true })).toBeVisible();
  await expect(other.getByText("No workspace assigned")).toHaveCount(0);

  await page.getByRole("link", { name: "Back to Workspaces" }).click();
  await page.getByRole("button", { name: "Delete workspace Lab For Nia" }).click();
  await actionButton(dialog(page, "Delete Workspace"), "Delete").click();
  await expect(card(page, "Lab For Nia")).toHaveCount(0);

  await other.reload();
  await expect(other.getByRole("heading", { name: "Manage Workspaces" })).toBeVisible();
  await expect(card(other, "Lab For Nia")).toHaveCount(0);
  await expect(other.getByText("No workspace assigned")).toBeVisible();
});
