import { expect, test } from "@playwright/test";
import { signIn } from "./console";

// The Budgets section on Billing & Usage holds its place while its lists load: the placeholder is
// the size of the usual answer (no budgets yet, no open reservations, as in the demo), so nothing
// below it moves when the answer comes.
test("the Budgets section keeps its height when its lists answer", async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 1000 });
  // The budgets and the reservations answer only when let through.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/v1\/budget/, async (route) => {
    await held;
    await route.continue();
  });
  await signIn(page, "admin@acme.test", "/");
  const section = page.locator("section#budgets");
  await expect(section.getByTestId("budgets-loading")).toBeVisible({ timeout: 120_000 });
  const loading = (await section.boundingBox())?.height ?? 0;

  release();
  await expect(section.getByText(/^No budgets yet\./)).toBeVisible();
  await expect(section.getByText("No eval run holds a reservation.")).toBeVisible();
  const answered = (await section.boundingBox())?.height ?? 0;
  expect(answered).toBeGreaterThan(0);
  expect(Math.abs(answered - loading)).toBeLessThanOrEqual(1);
});
