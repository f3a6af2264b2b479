import { createHmac, timingSafeEqual } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { WEBHOOK_SIGNATURE_HEADER } from "../../contract/budgets";
import { E2E } from "../../playwright.config";
import { actionButton, dialog, signIn } from "./console";
import { mailedSubjects } from "./mailbox";
import { type ReceivedWebhook, startWebhookReceiver } from "./webhook-receiver";

// Spend controls end to end (issue 15, "Done when"): an administrator sets a workspace budget in
// the console (alerts at 80% and 100%, hard limit); an eval service's usage, sent over the real
// ingestion API with an ingestion key, crosses 80% and then 100%. Each crossing mails the
// administrators, shows in the console's banner and calls the organization's webhook with a signed
// "triggered" event; the allowance call then refuses work. A credit brings spend back under both
// thresholds: the webhook gets "resolved" events and work is allowed again. The Audit Log shows the
// budget's creation. Screenshots of the section, the dialog and the banner are kept.

const ADMIN = "admin@acme.test";
const SHOTS = "test-results/budgets";

type Api = {
  auth: { headers: Record<string, string> };
  get: <T>(path: string) => Promise<T>;
  post: <T>(path: string, body: unknown, headers?: Record<string, string>) => Promise<T>;
};

/** The product API as the signed-in administrator (the page's own session token). */
async function adminApi(page: Page): Promise<Api> {
  const auth = await page.request.get(`${E2E.auth}/api/v1/refresh_token`);
  expect(auth.ok()).toBe(true);
  const authorization = `Bearer ${(await auth.json()).access_token as string}`;
  return {
    auth: { headers: { authorization } },
    get: async <T>(path: string) => {
      const res = await page.request.get(`${E2E.console}${path}`, { headers: { authorization } });
      expect(res.ok(), `GET ${path}: ${res.status()}`).toBe(true);
      return (await res.json()) as T;
    },
    post: async <T>(path: string, body: unknown, headers: Record<string, string> = { authorization }) => {
      const res = await page.request.post(`${E2E.console}${path}`, { headers, data: body });
      expect(res.ok(), `POST ${path}: ${res.status()} ${await res.text()}`).toBe(true);
      return (await res.json()) as T;
    },
  };
}

/** The receiver's own check of the documented signature: t=<unix>,v1=<hex HMAC-SHA256("<t>.<body>")>. */
function signedWith(secret: string, hook: ReceivedWebhook): boolean {
  const header = String(hook.headers[WEBHOOK_SIGNATURE_HEADER] ?? "");
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  const v1 = /(?:^|,)v1=([0-9a-f]{64})/.exec(header)?.[1];
  if (!t || !v1) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${hook.body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, "hex"));
}

const eventsOf = (type: string, workspace: string) => (r: ReceivedWebhook) =>
  r.json?.type === type && r.json?.data?.workspace_uuid === workspace;

test("a workspace budget alerts by email, banner and signed webhooks, stops work at its hard limit and resolves after a credit", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const stamp = Date.now();
  const workspaceName = `Budget Lab ${stamp}`;
  const hooks = await startWebhookReceiver();
  const cleanup: (() => Promise<unknown>)[] = [];
  try {
    await signIn(page, ADMIN, "/");
    const api = await adminApi(page);
    const me = await api.get<{ organization: { org_uuid: string } }>("/v1/accounts/me");
    const org = me.organization.org_uuid;

    // A new workspace (no spend yet), the eval service's ingestion key (made by the provider's
    // operator) and the organization's webhook endpoint.
    const workspace = await api.post<{ workspace_uuid: string }>("/v1/workspaces/", {
      name: workspaceName,
      organization_uuid: org,
    });
    const ws = workspace.workspace_uuid;
    const operator = { authorization: `Bearer ${E2E.backendKey}` };
    const { token: ingestKey } = await api.post<{ token: string }>(
      "/v1/operator/ingest-keys",
      { name: `Budgets e2e ${stamp}`, organization: org },
      operator,
    );
    const endpoint = await api.post<{ secret: string }>("/v1/webhook-endpoints", {
      url: hooks.url,
      events: ["budget.alert.triggered", "budget.alert.resolved"],
    });
    expect(endpoint.secret).toMatch(/^whsec_/);

    // An organization budget far above its spend, so the section shows a budget with no alert.
    const orgBudget = await api.post<{ budget_uuid: string }>("/v1/budgets", {
      scope: "organization",
      amount: "1000000.00",
      thresholds: [90],
    });
    cleanup.push(() => page.request.delete(`${E2E.console}/v1/budgets/${orgBudget.budget_uuid}`, api.auth));

    // The budget, set in the console: $10.00, alerts at 80% and 100%, hard limit.
    await page.reload();
    const section = page.locator("section#budgets");
    await expect(section.getByRole("heading", { name: "Budgets" })).toBeVisible();
    await expect(section.getByTestId("budgets-loading")).toHaveCount(0);
    await section.getByRole("button", { name: /(Add Budget|Set a Budget)/ }).click();
    const form = dialog(page, "Set Budget");
    await form.getByText("One workspace").click();
    await form.getByRole("combobox", { name: "Workspace" }).click();
    await page.locator(".ant-select-dropdown:visible").getByTitle(workspaceName).click();
    await form.getByLabel("Monthly budget (USD)").fill("10");
    await form.locator(".ant-select-selection-item[title='50'] .ant-select-selection-item-remove").click();
    await form.getByRole("switch", { name: "Hard limit" }).click();
    await expect(form.locator(".ant-select-selection-overflow .ant-select-selection-item")).toHaveText([
      "80",
      "100",
    ]);
    await form.screenshot({ path: `${SHOTS}/budget-dialog.png` });
    await actionButton(form, "Save Budget").click();
    await expect(form).toBeHidden();

    // The organization's spend is the cycle's Total Cost on the same page.
    const totalCost = (await page.getByTestId("total-cost").locator("div").first().textContent()) ?? "";
    expect(totalCost).toMatch(/^\$[\d,]+\.\d\d$/);
    const orgCard = section.getByTestId(`budget-${orgBudget.budget_uuid}`);
    await expect(orgCard.getByTestId("budget-spent")).toHaveText(`${totalCost} of $1,000,000.00`);
    await expect(orgCard.getByText("Hard limit")).toHaveCount(0);

    const card = section.locator(".ant-card-small").filter({ hasText: workspaceName });
    await expect(card.getByTestId("budget-spent")).toHaveText("$0.00 of $10.00");
    await expect(card.getByText("Hard limit")).toBeVisible();
    await expect(card.getByTestId("budget-triggered")).toHaveText("Alerts at 80%, 100%");

    const allowance = () =>
      api.get<{ allowed: boolean; reason: string | null; remaining: string | null }>(
        `/v1/usage/allowance?workspace_uuid=${ws}`,
      );
    expect(await allowance()).toMatchObject({ allowed: true, remaining: "10.00", reason: null });

    // Usage from the eval service: generation is priced $0.05 a unit in the demo price list, so
    // 170 units are $8.50 (85%).
    let n = 0;
    const ingest = async (units: number) => {
      const result = await api.post<{ accepted: number; rejected: unknown[] }>(
        "/v1/usage/events",
        {
          events: [
            {
              event_id: `budget-e2e-${stamp}-${++n}`,
              occurred_at: new Date().toISOString(),
              operation: "generation",
              eval_type: "safety",
              workspace_uuid: ws,
              quantity: units,
              created_by: "eval-service@acme.test",
            },
          ],
        },
        { "x-api-key": ingestKey },
      );
      expect(result).toMatchObject({ accepted: 1, rejected: [] });
    };
    await ingest(170);

    const triggered = eventsOf("budget.alert.triggered", ws);
    const [at80] = await hooks.waitFor(1, triggered, 30_000);
    expect(at80?.json?.data).toMatchObject({ threshold: 80, state: "triggered", amount: "10.00" });
    expect(signedWith(endpoint.secret, at80 as ReceivedWebhook)).toBe(true);
    expect(hooks.verify(at80 as ReceivedWebhook, endpoint.secret)).toMatchObject({ ok: true });
    expect(signedWith("whsec_not-the-secret", at80 as ReceivedWebhook)).toBe(false);

    await expect
      .poll(() => mailedSubjects(ADMIN), { timeout: 30_000 })
      .toContain(`Budget alert: ${workspaceName} reached 80% of its $10.00 monthly budget`);

    // The banner shows after the next page change, without a reload.
    await page.getByRole("navigation", { name: "Main" }).getByText("Workspaces").click();
    const banner = page.getByTestId("budget-alert-banner");
    await expect(banner).toContainText(
      `Workspace ${workspaceName} has used 80% of its $10.00 monthly budget.`,
    );
    expect(await allowance()).toMatchObject({ allowed: true, remaining: "1.50" });

    // Past 100%: 40 more units, $10.50 in all.
    await ingest(40);
    const [, at100] = await hooks.waitFor(2, triggered, 30_000);
    expect(at100?.json?.data).toMatchObject({ threshold: 100, state: "triggered", spent: "10.50" });
    expect(signedWith(endpoint.secret, at100 as ReceivedWebhook)).toBe(true);
    await expect
      .poll(() => mailedSubjects(ADMIN), { timeout: 30_000 })
      .toContain(`Budget alert: ${workspaceName} reached 100% of its $10.00 monthly budget`);
    expect(await allowance()).toMatchObject({
      allowed: false,
      remaining: "0.00",
      reason: "workspace_hard_limit",
    });

    await page.getByRole("navigation", { name: "Main" }).getByText("Billing & Usage").click();
    await expect(banner).toContainText(
      `Workspace ${workspaceName} has used 100% of its $10.00 monthly budget.`,
    );
    await expect(card.getByTestId("budget-spent")).toHaveText("$10.50 of $10.00");
    await expect(card.getByTestId("budget-triggered")).toHaveText("Alerts sent this cycle: 80%, 100%");
    await page.screenshot({ path: `${SHOTS}/banner.png` });
    await banner.screenshot({ path: `${SHOTS}/banner-only.png` });
    await section.screenshot({ path: `${SHOTS}/budgets-section.png` });

    // A credit of $5.00 from the provider: $5.50 spent, under both thresholds again.
    await api.post(
      `/v1/usage/events?organization_uuid=${org}`,
      {
        events: [
          {
            event_id: `budget-e2e-${stamp}-credit`,
            occurred_at: new Date().toISOString(),
            operation: "generation",
            eval_type: "safety",
            workspace_uuid: ws,
            cost: "-5.00",
            notes: "Goodwill credit",
          },
        ],
      },
      operator,
    );
    const resolved = await hooks.waitFor(2, eventsOf("budget.alert.resolved", ws), 30_000);
    expect(resolved.map((r) => r.json?.data?.threshold).sort()).toEqual([100, 80]);
    for (const hook of resolved) expect(signedWith(endpoint.secret, hook)).toBe(true);
    expect(await allowance()).toMatchObject({ allowed: true, remaining: "4.50", reason: null });

    await page.getByRole("navigation", { name: "Main" }).getByText("Workspaces").click();
    await expect(page.getByText(`Workspace ${workspaceName} has used`)).toHaveCount(0);

    // The workspace's own page shows the same budget, back under its thresholds.
    await page.goto(`/workspace/${ws}`);
    const own = page.locator(".ant-card-small").filter({ hasText: "Monthly Budget" });
    await expect(own.getByTestId("budget-spent")).toHaveText("$5.50 of $10.00");
    await expect(own.getByText("55% used")).toBeVisible();
    await expect(own.getByTestId("budget-triggered")).toHaveText("Alerts at 80%, 100%");
    await own.screenshot({ path: `${SHOTS}/workspace-budget.png` });

    // The Audit Log has the budget's creation, with its actor and target.
    await page.goto("/organization/audit-log");
    const created = page
      .locator(".ant-table-tbody tr.ant-table-row")
      .filter({ hasText: "Budget created" })
      .filter({ hasText: workspaceName });
    await expect(created).toHaveCount(1);
    await expect(created).toContainText(ADMIN);
    // ... and the webhook endpoint the alerts went to, added by the same administrator.
    const hookAdded = page
      .locator(".ant-table-tbody tr.ant-table-row")
      .filter({ hasText: "Webhook endpoint created" })
      .filter({ hasText: hooks.url });
    await expect(hookAdded).toHaveCount(1);
    await expect(hookAdded).toContainText(ADMIN);
  } finally {
    for (const step of cleanup) await step();
    await hooks.close();
  }
});

test("the budget dialog previews a budget against the last 90 days before it is saved", async ({ page }) => {
  await signIn(page, ADMIN, "/");
  const section = page.locator("section#budgets");
  await expect(section.getByTestId("budgets-loading")).toHaveCount(0);
  const before = await (await adminApi(page)).get<{ budgets: unknown[] }>("/v1/budgets");
  await section.getByRole("button", { name: /(Add Budget|Set a Budget)/ }).click();
  const form = dialog(page, "Set Budget");
  await form.getByText("One workspace").click();
  await form.getByRole("combobox", { name: "Workspace" }).click();
  await page.locator(".ant-select-dropdown:visible").getByTitle("Red Team").click();
  // A dollar a month: the demo's usage reaches it in every cycle.
  await form.getByLabel("Monthly budget (USD)").fill("1");
  await form.getByRole("switch", { name: "Hard limit" }).click();
  await form.getByRole("button", { name: "Preview against the last 90 days" }).click();

  const preview = form.getByTestId("budget-preview");
  await expect(preview.getByText("What this budget would have done in the last 90 days")).toBeVisible();
  await expect(preview.getByTestId("budget-preview-chart")).toBeVisible();
  await expect(
    preview.getByText(/^\d+ alerts in the last 90 days: 50% on [A-Z][a-z]{2} \d+, 80% on /),
  ).toBeVisible();
  await expect(
    preview.getByText(
      /^The hard limit would have blocked new work for .+ runs? refused, up to \$[\d,]+\.\d\d of spend avoided\.$/,
    ),
  ).toBeVisible();
  expect(await preview.getByTestId("budget-preview-blocked").count()).toBeGreaterThan(0);
  await form.screenshot({ path: `${SHOTS}/budget-preview.png` });

  // A changed amount makes the answer stale: the button comes back for the new values.
  await form.getByLabel("Monthly budget (USD)").fill("1000000");
  await expect(preview.getByTestId("budget-preview-chart")).toHaveCount(0);
  await form.getByRole("button", { name: "Preview against the last 90 days" }).click();
  await expect(preview.getByText("No threshold would have been reached in the last 90 days.")).toBeVisible();
  await expect(preview.getByText("The hard limit would never have blocked new work.")).toBeVisible();

  // A preview stores nothing.
  await actionButton(form, "Cancel").click();
  await expect(form).toBeHidden();
  expect(await (await adminApi(page)).get<{ budgets: unknown[] }>("/v1/budgets")).toEqual(before);
});

/** "Nov 27, 2026, 12:00:00 UTC", as the page writes a completeness time. */
const utcStamp = (d: Date) =>
  `${d.toLocaleString("en-US", { month: "short", timeZone: "UTC" })} ${d.getUTCDate()}, ${d.getUTCFullYear()}, ${d.toISOString().slice(11, 19)} UTC`;

test("a run reserves its estimate before it starts, is refused with its shortfall, shows its hold and frees it when finished; the dashboard says how complete usage is", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const stamp = Date.now();
  await signIn(page, ADMIN, "/");
  const api = await adminApi(page);
  const me = await api.get<{ organization: { org_uuid: string } }>("/v1/accounts/me");
  const org = me.organization.org_uuid;
  const ws = (
    await api.post<{ workspace_uuid: string }>("/v1/workspaces/", {
      name: `Reserve Lab ${stamp}`,
      organization_uuid: org,
    })
  ).workspace_uuid;
  const budget = await api.post<{ budget_uuid: string }>("/v1/budgets", {
    scope: "workspace",
    workspace_uuid: ws,
    amount: "10",
    hard_limit: true,
  });
  const { token: ingestKey } = await api.post<{ token: string }>(
    "/v1/operator/ingest-keys",
    { name: `Reservations e2e ${stamp}`, organization: org },
    { authorization: `Bearer ${E2E.backendKey}` },
  );
  try {
    // $8 reserved of $10: a second run estimated at $5 does not fit, and says by how much.
    const run = await api.post<{ eval_run_uuid: string; reservation: { held: string } }>("/v1/eval-runs", {
      workspace_uuid: ws,
      name: `Reserved run ${stamp}`,
      eval_type: "safety",
      estimate: { cost: "8" },
    });
    expect(run.reservation.held).toBe("8.00");
    const refused = await page.request.post(`${E2E.console}/v1/eval-runs`, {
      headers: api.auth.headers,
      data: { workspace_uuid: ws, estimate: { cost: "5" } },
    });
    expect(refused.status()).toBe(402);
    expect((await refused.json()).error).toMatchObject({
      code: "spend_limit_exceeded",
      shortfall: "3.00",
      free: "2.00",
    });

    // The run's usage ($2.00: 40 generation units at $0.05) moves from its hold to used; the
    // eval service reports everything up to a minute ago as sent.
    const sent = async (units: number, watermark: Date) => {
      const res = await page.request.post(`${E2E.console}/v1/usage/events`, {
        headers: { "x-api-key": ingestKey, "usage-complete-through": watermark.toISOString() },
        data: {
          events: [
            {
              event_id: `reserve-e2e-${stamp}-${units}-${watermark.getTime()}`,
              occurred_at: new Date(watermark.getTime() - 1000).toISOString(),
              operation: "generation",
              eval_type: "safety",
              workspace_uuid: ws,
              eval_run_uuid: run.eval_run_uuid,
              quantity: units,
            },
          ],
        },
      });
      expect(res.ok(), await res.text()).toBe(true);
    };
    const first = new Date(Math.floor((Date.now() - 60_000) / 1000) * 1000);
    await sent(40, first);

    await page.goto(`${E2E.console}/eval-runs/${run.eval_run_uuid}`);
    const card = page.getByTestId("run-reservation");
    await expect(card).toContainText("Held");
    await expect(card).toContainText("Estimate$8.00");
    await expect(card).toContainText("Used$2.00");
    await expect(card).toContainText("Held$6.00");
    await card.screenshot({ path: `${SHOTS}/reservation-held.png` });

    const finished = await api.post<{ reservation: { held: string; state: string } }>(
      `/v1/eval-runs/${run.eval_run_uuid}/finish`,
      {},
    );
    expect(finished.reservation).toMatchObject({ held: "0.00", state: "finished" });
    await page.reload();
    await expect(card).toContainText("Released: run finished");
    await expect(card).toContainText("Held$0.00");
    expect(await api.get(`/v1/usage/allowance?workspace_uuid=${ws}`)).toMatchObject({
      spent: "2.00",
      reserved: "0.00",
      free: "8.00",
    });

    // The dashboard: complete through the watermark, and moving when the next batch moves it.
    await page.goto(`${E2E.console}/`);
    const note = page.getByTestId("completeness");
    await expect(note).toContainText(`Complete through ${utcStamp(first)}`);
    const next = new Date(first.getTime() + 30_000);
    await sent(1, next);
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(note).toContainText(`Complete through ${utcStamp(next)}`);
    // An event for a time already reported complete is counted late, and its count lists it.
    await sent(2, first);
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(note).toContainText("1 event arrived late");
    await note.getByTestId("late-events").click();
    await expect(page.getByTestId("late-events-list")).toContainText(
      `reserve-e2e-${stamp}-2-${first.getTime()}`,
    );
  } finally {
    await page.request.delete(`${E2E.console}/v1/budgets/${budget.budget_uuid}`, api.auth);
  }
});

test("an administrator sees a run's open reservation beside the budgets and releases it", async ({
  page,
}) => {
  const stamp = Date.now();
  await signIn(page, ADMIN, "/");
  const api = await adminApi(page);
  const me = await api.get<{ organization: { org_uuid: string } }>("/v1/accounts/me");
  const ws = (
    await api.post<{ workspace_uuid: string }>("/v1/workspaces/", {
      name: `Release Lab ${stamp}`,
      organization_uuid: me.organization.org_uuid,
    })
  ).workspace_uuid;
  const budget = await api.post<{ budget_uuid: string }>("/v1/budgets", {
    scope: "workspace",
    workspace_uuid: ws,
    amount: "10",
    hard_limit: true,
  });
  try {
    const name = `Held run ${stamp}`;
    await api.post("/v1/eval-runs", { workspace_uuid: ws, name, estimate: { cost: "10" } });
    expect(await api.get(`/v1/usage/allowance?workspace_uuid=${ws}`)).toMatchObject({ free: "0.00" });

    await page.goto(`${E2E.console}/`);
    const row = page.getByTestId("open-reservations").locator("tr.ant-table-row").filter({ hasText: name });
    await expect(row).toContainText(`Release Lab ${stamp}`);
    await expect(row).toContainText(ADMIN);
    await expect(row).toContainText("$10.00");
    await row.getByRole("button", { name: `Release the reservation of ${name}` }).click();
    await page.getByRole("button", { name: "Release", exact: true }).click();
    await expect(row).toHaveCount(0);
    expect(await api.get(`/v1/usage/allowance?workspace_uuid=${ws}`)).toMatchObject({ free: "10.00" });
  } finally {
    await page.request.delete(`${E2E.console}/v1/budgets/${budget.budget_uuid}`, api.auth);
  }
});
