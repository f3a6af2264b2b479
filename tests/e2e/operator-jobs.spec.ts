import { expect, type Page, test } from "@playwright/test";
import { E2E } from "../../playwright.config";
import { actionButton, dialog, signIn, toast } from "./console";

// Jobs in the operator area (issue 52): a provider operator sets a price on an organization's page;
// the rule's row links to its re-rating job, whose page follows it to done with a full bar, and the
// Jobs list shows it there too. The operator is a demo member made one for this test.

const OPERATOR = "member@acme.test";
const SHOTS = "test-results/operator";
const operatorAuth = { authorization: `Bearer ${E2E.backendKey}` };
const nav = (page: Page) => page.getByRole("navigation", { name: "Main" });

test("a provider operator sets a price and follows its re-rating job to done", async ({ page }) => {
  test.setTimeout(120_000);
  const granted = await page.request.post(`${E2E.console}/v1/operator/operators`, {
    headers: operatorAuth,
    data: { email: OPERATOR },
  });
  expect(granted.ok(), `grant: ${granted.status()} ${await granted.text()}`).toBe(true);
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await signIn(page, OPERATOR, "/operator/organizations");
    await page.getByRole("row").filter({ hasText: "Acme AI" }).getByRole("link", { name: "Acme AI" }).click();
    await expect(page.getByRole("heading", { name: "Acme AI", level: 2 })).toBeVisible();

    // A price for a modality no other test sends.
    const modality = `jobs-${Date.now()}`;
    await page.getByRole("button", { name: /Set price/ }).click();
    const form = dialog(page, "Set price");
    await form.getByLabel("Eval type").fill("safety");
    await form.getByLabel("Modality").fill(modality);
    await form.getByLabel("Unit price (USD)").fill("0.0333");
    await actionButton(form, "Set price").click();
    await expect(form).toBeHidden();
    await expect(toast(page).filter({ hasText: "Price set" })).toBeVisible();

    // The rule's row links to its re-rating; the job's page follows it until it is done.
    const row = page.getByRole("row").filter({ hasText: modality });
    await row.getByRole("link", { name: /Re-rating job of price rule/ }).click();
    await expect(page).toHaveURL(/\/operator\/jobs\/[0-9a-f-]{36}$/);
    const jobUuid = page.url().split("/").pop() as string;
    await expect(page.getByRole("heading", { name: "Re-rating after a price change" })).toBeVisible();
    const bar = page.getByLabel(`Progress of job ${jobUuid}`);
    await expect(bar).toHaveClass(/ant-progress-status-success/);
    await expect(page.getByText("Done", { exact: true })).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/job.png` });

    // The Jobs list shows it done, with its bar.
    await nav(page).getByRole("link", { name: "Jobs" }).click();
    await expect(page.getByRole("heading", { name: "Jobs" })).toBeVisible();
    const listed = page.getByRole("row").filter({ hasText: jobUuid });
    await expect(listed).toContainText("Done");
    await expect(listed.getByLabel(`Progress of job ${jobUuid}`)).toHaveClass(/ant-progress-status-success/);
    await page.screenshot({ path: `${SHOTS}/jobs.png` });

    // And the API agrees.
    const job = await page.request.get(`${E2E.console}/v1/operator/jobs/${jobUuid}`, {
      headers: operatorAuth,
    });
    expect(await job.json()).toMatchObject({ job_uuid: jobUuid, kind: "price-rerate", state: "done" });
  } finally {
    const revoked = await page.request.delete(
      `${E2E.console}/v1/operator/operators/${encodeURIComponent(OPERATOR)}`,
      { headers: operatorAuth },
    );
    expect(revoked.ok(), `revoke: ${revoked.status()}`).toBe(true);
  }
});
