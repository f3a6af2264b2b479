import { expect, test } from "@playwright/test";
import { E2E } from "../../playwright.config";
import { signIn } from "./console";

// Workspace details only for those who may see them, a malformed id read as "not found", and the
// hosted organization page with its way back to the console.

const shot = (name: string) => `test-results/${process.env.E2E_PORT ?? "e2e"}-${name}.png`;

test("a workspace id that is not a UUID reads Workspace not found, with the link back", async ({ page }) => {
  await signIn(page, "admin@acme.test", "/organization/workspaces");
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/workspace/not-a-uuid");
    await expect(page.getByText("Workspace not found", { exact: true })).toBeVisible();
    await expect(page.getByText(/must be a UUID/)).toHaveCount(0);
    await page.screenshot({ path: shot(`workspace-not-a-uuid-${width}`), fullPage: true });
  }
  await page.getByRole("link", { name: /Back to Workspaces/ }).click();
  await expect(page).toHaveURL(`${E2E.console}/organization/workspaces`);
});

test("a member opens their own workspace's details but not another's", async ({ page, browser }) => {
  // The administrator finds Red Team's address (the member is in Safety Research only).
  await signIn(page, "admin@acme.test", "/organization/workspaces");
  await page
    .getByRole("article", { name: "Red Team", exact: true })
    .getByText("View Workspace Details", { exact: true })
    .click();
  await expect(page.getByText("Workspace Members")).toBeVisible();
  const redTeam = new URL(page.url()).pathname;

  const member = await (await browser.newContext()).newPage();
  await signIn(member, "member@acme.test", "/organization/workspaces");
  await member.goto(redTeam);
  await expect(member.getByText("Workspace not found", { exact: true })).toBeVisible();
  await expect(member.getByText("admin@acme.test")).toHaveCount(0);
  await member.screenshot({ path: shot("workspace-member-other"), fullPage: true });
});

test("the hosted organization page opens without an id and leads back to the console", async ({ page }) => {
  await signIn(page, "admin@acme.test", "/organization/workspaces");
  const back = `${E2E.console}/organization/workspaces`;
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${E2E.auth}/org?rt=${encodeURIComponent(btoa(back))}`);
    await expect(page.getByRole("heading", { name: "Acme AI", level: 1 })).toBeVisible();
    await page.screenshot({ path: shot(`hosted-org-${width}`), fullPage: true });
  }
  await page.getByRole("link", { name: "Back to the console" }).click();
  await expect(page).toHaveURL(back);
});
