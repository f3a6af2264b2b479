import { readFile } from "node:fs/promises";
import { expect, type Page, test } from "@playwright/test";
import { E2E } from "../../playwright.config";
import { consoleAt, sessionHeaders, signIn } from "./console";

// What a run bought, from the list through Compare to a run: two runs of one eval report their
// outcomes (one while it goes, one as it finishes); the Eval Runs list shows their Pass Rate and
// Cost per Passed Case; choosing both and "Compare" sets them side by side with the difference,
// downloads the comparison, and a run's link opens its page with the same figures.

type Compared = { eval_run_uuid: string; cost_per_passed_case: string | null; pass_rate: string | null };

async function call<T>(
  page: Page,
  method: "POST" | "PUT" | "GET",
  path: string,
  headers: Record<string, string>,
  data?: unknown,
) {
  const res = await page.request.fetch(`${E2E.console}${path}`, {
    method,
    headers,
    ...(data === undefined ? {} : { data }),
  });
  expect(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

/** The exact amount as the console writes it: the API's digits (at least two decimals) after "$". */
const exact = (usd: string) => `$${usd}`;

test("two runs' outcomes from the list, through Compare, to a run's page", async ({ page }) => {
  test.setTimeout(180_000);
  const stamp = Date.now();
  const name = `Compare Sweep ${stamp}`;
  await signIn(page, "admin@acme.test", "/");
  const admin = await sessionHeaders(page);
  const me = await call<{ organization: { org_uuid: string } }>(page, "GET", "/v1/accounts/me", admin);
  const org = me.organization.org_uuid;
  const ws = (
    await call<{ workspace_uuid: string }>(page, "POST", "/v1/workspaces/", admin, {
      name: `Compare Lab ${stamp}`,
      organization_uuid: org,
    })
  ).workspace_uuid;
  const { token: ingestKey } = await call<{ token: string }>(
    page,
    "POST",
    "/v1/operator/ingest-keys",
    { authorization: `Bearer ${E2E.backendKey}` },
    { name: `Compare e2e ${stamp}`, organization: org },
  );
  const start = async () =>
    (
      await call<{ eval_run_uuid: string }>(page, "POST", "/v1/eval-runs", admin, {
        workspace_uuid: ws,
        name,
        eval_type: "safety",
      })
    ).eval_run_uuid;
  const first = await start();
  const second = await start();
  const at = new Date(Date.now() - 60_000).toISOString();
  const event = (id: string, run: string, operation: string, quantity: number) => ({
    event_id: `compare-e2e-${stamp}-${id}`,
    occurred_at: at,
    operation,
    eval_type: "safety",
    workspace_uuid: ws,
    name,
    eval_run_uuid: run,
    quantity,
  });
  await call(
    page,
    "POST",
    "/v1/usage/events",
    { "x-api-key": ingestKey },
    {
      events: [
        event("a-gen", first, "generation", 10),
        event("a-score", first, "scoring", 10),
        event("b-gen", second, "generation", 4),
      ],
    },
  );
  await call(page, "PUT", `/v1/eval-runs/${first}/outcomes`, admin, { outcomes: { passed: 8, failed: 2 } });
  await call(page, "POST", `/v1/eval-runs/${second}/finish`, admin, {
    outcomes: { passed: 3, failed: 0, errored: 1 },
  });
  const expected = await call<{ runs: Compared[] }>(
    page,
    "GET",
    `/v1/eval-runs/compare?eval_run_uuid=${first}&eval_run_uuid=${second}`,
    admin,
  );
  const [a, b] = expected.runs;

  // The list: both runs, with their pass rate and cost per passed case.
  await page.goto(`${E2E.console}/eval-runs`);
  await page.getByLabel("Search eval runs").fill(name);
  const row = (run: string) => page.locator("tr.ant-table-row").filter({ hasText: run });
  await expect(row(first)).toContainText("80.0%");
  await expect(row(first)).toContainText(exact(a?.cost_per_passed_case ?? ""));
  await expect(row(second)).toContainText("75.0%");
  const compare = page.getByTestId("eval-runs-compare");
  await expect(compare).toBeDisabled();
  await page.getByLabel(`Choose ${first} to compare`).check();
  await page.getByLabel(`Choose ${second} to compare`).check();
  await compare.click();

  // Compare: side by side, the second with its difference from the first.
  await expect(page).toHaveURL(consoleAt("/eval-runs/compare"));
  await expect(page.getByRole("heading", { name: "Compare" })).toBeVisible();
  const rates = page.getByTestId("compare-pass_rate");
  await expect(rates.nth(0)).toHaveText("80.0%");
  await expect(rates.nth(1)).toContainText("75.0%");
  await expect(rates.nth(1)).toContainText("(-5.0 pts)");
  await expect(page.getByTestId("compare-cost_per_passed_case").nth(1)).toContainText(
    exact(b?.cost_per_passed_case ?? ""),
  );
  await expect(page.getByTestId("compare-chart")).toContainText(name);
  await expect(
    page.getByTestId("compare-chart-runs").getByRole("link", { name: new RegExp(second) }),
  ).toBeVisible();

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^eval_run_comparison_\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = (await readFile((await download.path()) ?? "", "utf8")).trimEnd().split("\r\n");
  expect(csv[0]).toContain("Run ID,Eval,Eval Type");
  expect(csv.slice(1).map((line) => line.split(",")[0])).toEqual([first, second]);

  // A run's link opens its page, which shows the same figures beside its cost.
  await page.getByTestId("compare-run-link").nth(1).click();
  await expect(page).toHaveURL(consoleAt(`/eval-runs/${second}`));
  const outcomes = page.getByTestId("run-outcomes");
  await expect(outcomes).toContainText("Passed3");
  await expect(page.getByTestId("run-pass-rate")).toHaveText("75.0%");
  await expect(page.getByTestId("run-cost-per-passed-case")).toHaveText(exact(b?.cost_per_passed_case ?? ""));
});
