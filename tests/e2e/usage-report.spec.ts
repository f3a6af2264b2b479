import { expect, type Page, test } from "@playwright/test";
import Papa from "papaparse";
import { reportCsvHeaders } from "../../contract/usage-report";
import { E2E } from "../../playwright.config";
import { sessionHeaders, signIn } from "./console";
import { micros, usd } from "./money";

// The usage report API's CSV, fetched with the signed-in administrator's own token, adds up to
// exactly what the Billing & Usage page shows for the same period and filter.

type Cycle = {
  billing_cycle_uuid: string;
  billing_cycle_start_date: string;
  billing_cycle_end_date: string | null;
};
type Row = Record<string, string>;

/** The API with the page's own session: its access token from the identity service. */
async function api(page: Page) {
  const headers = await sessionHeaders(page);
  return {
    cycles: async () => {
      const res = await page.request.get(`${E2E.console}/v1/accounts/organization/billingcycles`, {
        headers,
      });
      expect(res.ok()).toBe(true);
      return ((await res.json()) as Cycle[]).sort((a, b) =>
        a.billing_cycle_start_date.localeCompare(b.billing_cycle_start_date),
      );
    },
    reportCsv: async (query: string) => {
      const res = await page.request.get(`${E2E.console}/v1/usage/report?${query}`, {
        headers: { ...headers, Accept: "text/csv" },
      });
      expect(res.status(), await res.text()).toBe(200);
      expect(res.headers()["content-type"]).toBe("text/csv; charset=utf-8");
      return Papa.parse<Row>(await res.text(), { header: true, skipEmptyLines: true });
    },
  };
}

const sum = (rows: Row[], column: string) => rows.reduce((t, r) => t + micros(r[column] ?? "0"), 0n);

test.describe.configure({ timeout: 180_000 });

test("the report API's CSV equals the Billing & Usage page's totals, unfiltered and filtered", async ({
  page,
}) => {
  await signIn(page, "admin@acme.test", "/");
  await expect(page.getByRole("heading", { name: "Billing & Usage" })).toBeVisible();
  const http = await api(page);
  const cycles = await http.cycles();
  const latest = cycles[cycles.length - 1] as Cycle;
  // The page shows the latest cycle; the report asks for the same period (an open cycle: through
  // the default end, the next UTC midnight).
  const period = `starting_at=${latest.billing_cycle_start_date}${
    latest.billing_cycle_end_date ? `&ending_at=${latest.billing_cycle_end_date}` : ""
  }`;
  const summary = page.getByTestId("summary-total");
  await expect(summary).toHaveText(/^Total -?\$[\d,]+\.\d{2} · [\d,]+ events$/);

  const check = async (query: string, groupBy: ("workspace" | "eval_type")[]) => {
    const csv = await http.reportCsv(`${period}&${query}&group_by=${groupBy.join(",")}`);
    expect(csv.meta.fields).toEqual(reportCsvHeaders(groupBy));
    expect(csv.data.length).toBeGreaterThan(0);
    const events = csv.data.reduce((t, r) => t + Number(r.Events), 0);
    await expect(summary).toHaveText(
      `Total ${usd(sum(csv.data, "Cost"))} · ${events.toLocaleString("en-US")} events`,
    );
    return csv.data;
  };

  // Unfiltered: days per workspace; the page's total strip too.
  const all = await check("bucket_width=1d", ["workspace"]);
  await expect(
    page.getByTestId("total-cost").getByText(usd(sum(all, "Cost")), { exact: true }),
  ).toBeVisible();
  // Each workspace's sum is the page's By Workspace figure.
  const byWorkspace = new Map<string, bigint>();
  for (const r of all)
    byWorkspace.set(r.Workspace ?? "", (byWorkspace.get(r.Workspace ?? "") ?? 0n) + micros(r.Cost ?? "0"));
  const top = [...byWorkspace.entries()]
    .filter(([n]) => n !== "No Workspace")
    .sort((a, b) => (a[1] > b[1] ? -1 : 1))[0];
  if (top)
    await expect(
      page
        .getByTestId("breakdown-by-workspace")
        .getByTestId("breakdown-row")
        .filter({ hasText: top[0] })
        .first(),
    ).toContainText(usd(top[1]));

  // Filtered on the page by Eval Type: Safety, and the same filter on the report, by week.
  await page.getByRole("button", { name: "Eval Type: All" }).click();
  await page
    .locator(".ant-dropdown:visible")
    .getByRole("menuitemcheckbox", { name: "Safety", exact: true })
    .click();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: "Eval Type: Safety" })).toBeVisible();
  const weeks = await check("bucket_width=1w&eval_type=safety", ["eval_type"]);
  expect(new Set(weeks.map((r) => r["Eval Type"]))).toEqual(new Set(["safety"]));
  expect(sum(weeks, "Cost")).toBeLessThan(sum(all, "Cost"));
});
