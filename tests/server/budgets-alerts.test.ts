// Budget alerts as usage is ingested: each threshold triggers once per billing cycle (repeated
// and concurrent batches included), a credit resolves what spend fell back below, a new cycle
// resolves the last one's alerts; every transition sends one email to each administrator after
// its commit (none when it rolls back) and queues one webhook event in its transaction.
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { BudgetAlert } from "../../contract/budgets";
import { budgets } from "../../server/db/schema";
import { closeCycle } from "../../server/metering/billing/billing";
import { evaluateAllBudgets } from "../../server/metering/budgets/eval";
import { setUpBudgets } from "./budgets-fixture";
import { backends } from "./harness";
import { rowsOf } from "./tenants";
import { sendAsOperator } from "./usage-setup";
import { productWithWorkspaces } from "./workspaces-fixture";

const ADMIN = "admin@acme.test";

describe.each(backends())("budget alerts on $name", (backend) => {
  const s = productWithWorkspaces(backend);
  let b: Awaited<ReturnType<typeof setUpBudgets>>;
  let redTeam = "";
  let safety = "";
  let accuracy = "";
  beforeAll(async () => {
    b = await setUpBudgets(s.p, s.f);
    redTeam = await s.f.idOf("Red Team");
    safety = await s.f.idOf("Safety Research");
    accuracy = await s.f.idOf("Accuracy Benchmarks");
    // An endpoint subscribed to both alert events: the evaluation queues one delivery per event.
    await b.db.execute(sql`
      insert into webhook_endpoints (organization_uuid, url, event_types, enabled, secret_sealed)
      values (${s.f.acmeId}, 'http://127.0.0.1:9/hook',
              array['budget.alert.triggered', 'budget.alert.resolved'], true, 'unused')`);
  });

  /** The webhook events queued for a budget, as "type threshold state spent" lines, sorted. */
  async function webhookEvents(budgetUuid: string) {
    const rows = rowsOf<{ event_type: string; payload: { data: BudgetAlert } | string }>(
      await b.db.execute(sql`
        select event_type, payload from webhook_deliveries
         where payload::jsonb -> 'data' ->> 'budget_uuid' = ${budgetUuid} `),
    );
    // Sorted: the events of one transaction share their created_at.
    return rows
      .map((r) => {
        const payload = typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload;
        return `${r.event_type} ${payload.data.threshold} ${payload.data.state} ${payload.data.spent}`;
      })
      .sort();
  }

  it("triggers each threshold once per cycle and resolves what a credit brings spend back below", async () => {
    const budget = await b.createBudget("admin", {
      scope: "workspace",
      workspace_uuid: redTeam,
      amount: "100",
    });
    await b.spend(s.f.acmeId, redTeam, 49.99);
    expect(b.takeMails()).toEqual([]);

    const crossing = await b.spend(s.f.acmeId, redTeam, 30.01);
    expect(b.takeMails()).toEqual([
      `${ADMIN}: Budget alert: Red Team reached 50% of its $100.00 monthly budget`,
      `${ADMIN}: Budget alert: Red Team reached 80% of its $100.00 monthly budget`,
    ]);

    // The same batch again is duplicates only; more spend below 100% crosses nothing new.
    await sendAsOperator(s.p, s.f.acmeId, [crossing]);
    await b.spend(s.f.acmeId, redTeam, 1);
    await b.notifier.settled();
    expect(b.takeMails()).toEqual([]);
    expect(await b.budget("admin", budget.budget_uuid)).toMatchObject({
      spent: "81.00",
      percent_used: 81,
      triggered_thresholds: [50, 80],
    });
    const alerts = (await s.f.call("admin", "GET", "/v1/budgets/alerts")).json().alerts as BudgetAlert[];
    expect(alerts.map((a) => [a.workspace_name, a.threshold, a.state, a.spent, a.amount])).toEqual([
      ["Red Team", 80, "triggered", "80.00", "100.00"],
      ["Red Team", 50, "triggered", "80.00", "100.00"],
    ]);

    await b.spend(s.f.acmeId, redTeam, 19);
    expect(b.takeMails()).toEqual([
      `${ADMIN}: Budget alert: Red Team reached 100% of its $100.00 monthly budget`,
    ]);

    // A $30 credit: 70.00 spent, below 80% and 100%, still above 50%.
    await b.spend(s.f.acmeId, redTeam, -30);
    expect(b.takeMails()).toEqual([
      `${ADMIN}: Budget alert resolved: Red Team is back below 80% of its $100.00 monthly budget`,
      `${ADMIN}: Budget alert resolved: Red Team is back below 100% of its $100.00 monthly budget`,
    ]);
    expect((await b.budget("admin", budget.budget_uuid)).triggered_thresholds).toEqual([50]);

    // Spend rises past 80% and 100% again in the same cycle: no second alert.
    await b.spend(s.f.acmeId, redTeam, 40);
    expect(b.takeMails()).toEqual([]);
    expect((await b.budget("admin", budget.budget_uuid)).triggered_thresholds).toEqual([50]);

    expect(await webhookEvents(budget.budget_uuid)).toEqual([
      "budget.alert.resolved 100 resolved 70.00",
      "budget.alert.resolved 80 resolved 70.00",
      "budget.alert.triggered 100 triggered 100.00",
      "budget.alert.triggered 50 triggered 80.00",
      "budget.alert.triggered 80 triggered 80.00",
    ]);
  });

  it("records each threshold once when batches of one workspace are ingested concurrently", async () => {
    const budget = await b.createBudget("admin", {
      scope: "workspace",
      workspace_uuid: safety,
      amount: "10",
      thresholds: [50, 100],
    });
    await Promise.all(Array.from({ length: 8 }, () => b.spend(s.f.acmeId, safety, 5)));
    await b.notifier.settled();
    const rows = rowsOf<{ threshold: number; n: number }>(
      await b.db.execute(sql`
        select threshold, count(*)::int as n from budget_alerts where budget_uuid = ${budget.budget_uuid}
         group by threshold order by threshold`),
    );
    expect(rows).toEqual([
      { threshold: 50, n: 1 },
      { threshold: 100, n: 1 },
    ]);
    expect(b.takeMails().sort()).toEqual([
      `${ADMIN}: Budget alert: Safety Research reached 100% of its $10.00 monthly budget`,
      `${ADMIN}: Budget alert: Safety Research reached 50% of its $10.00 monthly budget`,
    ]);
    expect((await webhookEvents(budget.budget_uuid)).length).toBe(2);
  });

  it("sends nothing for an evaluation whose transaction rolls back, and alerts a budget set below spend", async () => {
    const budget = await b.createBudget("admin", {
      scope: "workspace",
      workspace_uuid: accuracy,
      amount: "1000",
      thresholds: [50],
    });
    await b.spend(s.f.acmeId, accuracy, 200);
    expect(b.takeMails()).toEqual([]);

    await expect(
      b.db.transaction(async (tx) => {
        await tx
          .update(budgets)
          .set({ amountMicros: 100_000_000n })
          .where(eq(budgets.budgetUuid, budget.budget_uuid));
        expect(await evaluateAllBudgets(tx, s.f.acmeId)).toHaveLength(1);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    await b.notifier.deliver();
    expect(b.takeMails()).toEqual([]);
    expect(await webhookEvents(budget.budget_uuid)).toEqual([]);
    expect((await b.budget("admin", budget.budget_uuid)).triggered_thresholds).toEqual([]);

    // The same change through the API commits: the alert triggers at once, mailed once.
    const patched = await s.f.call("admin", "PATCH", `/v1/budgets/${budget.budget_uuid}`, { amount: "100" });
    expect(patched.json().triggered_thresholds).toEqual([50]);
    await b.notifier.settled();
    await b.notifier.deliver();
    expect(b.takeMails()).toEqual([
      `${ADMIN}: Budget alert: Accuracy Benchmarks reached 50% of its $100.00 monthly budget`,
    ]);
    expect(await webhookEvents(budget.budget_uuid)).toEqual(["budget.alert.triggered 50 triggered 200.00"]);
  });

  it("names the organization in its own budget's alerts, and says what a reached hard limit means", async () => {
    await b.createBudget("admin", {
      scope: "organization",
      amount: "1",
      thresholds: [100],
      hard_limit: true,
    });
    const [mail, ...more] = b.mails.splice(0);
    expect(more).toEqual([]);
    expect(mail?.to).toBe(ADMIN);
    expect(mail?.subject).toBe("Budget alert: Acme AI reached 100% of its $1.00 monthly budget");
    expect(mail?.text).toContain(
      "Spend in the organization Acme AI has reached 100% of its $1.00 monthly budget.",
    );
    expect(mail?.text).toContain("This budget is a hard limit: new eval runs are refused");
    expect(mail?.text).toContain("http://localhost:3000/");
  });

  it("resolves every open alert when a new billing cycle begins", async () => {
    const open = (await s.f.call("admin", "GET", "/v1/budgets/alerts")).json().alerts as BudgetAlert[];
    expect(open.length).toBeGreaterThan(0);
    const now = new Date();
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
      .toISOString()
      .slice(0, 10);
    await closeCycle(b.db, s.f.acmeId, { endDate: next });
    // The billing command (as the CLI runs it) leaves the notices; this process's sender sends them.
    await b.notifier.settled();
    await b.notifier.deliver();
    const mails = b.takeMails();
    expect(mails).toHaveLength(open.length);
    expect(mails).toContain(
      `${ADMIN}: Budget alert resolved: Red Team's 50% alert of the cycle from ${open[0]?.cycle_start.slice(0, 10)} is closed`,
    );
    expect((await s.f.call("admin", "GET", "/v1/budgets/alerts")).json()).toEqual({ alerts: [] });
    const list = (await s.f.call("admin", "GET", "/v1/budgets")).json().budgets as {
      spent: string;
      cycle_start: string;
    }[];
    for (const x of list) expect(x).toMatchObject({ spent: "0.00", cycle_start: `${next}T00:00:00.000Z` });
  });
});
