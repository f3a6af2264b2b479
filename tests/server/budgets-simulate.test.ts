// POST /v1/budgets/simulate: a proposed budget replayed over the organization's real usage. Its
// fired thresholds are what the live budget then triggers on the same usage; a hard limit's block
// counts the runs it would have refused and the spend after it; other tenants' usage never counts.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { BudgetSimulation } from "../../contract/budget-simulation";
import { utcDay } from "../../contract/utc-calendar";
import { closeCycle } from "../../server/metering/billing/billing";
import { setUpBudgets } from "./budgets-fixture";
import type { TestProduct } from "./harness";
import { backends } from "./harness";
import { addCycle, sendAsOperator, setSamplePrices } from "./usage-setup";
import { productWithWorkspaces } from "./workspaces-fixture";

/** The 1st of the month `back` months before this one, UTC, and a day of it. */
const monthBack = (back: number, dayOfMonth: number, hour = 10) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, dayOfMonth, hour));
};

describe.each(backends())("budget simulation on $name", (backend) => {
  const s = productWithWorkspaces(backend);
  let b: Awaited<ReturnType<typeof setUpBudgets>>;
  let redTeam = "";
  let safety = "";
  beforeAll(async () => {
    b = await setUpBudgets(s.p, s.f);
    redTeam = await s.f.idOf("Red Team");
    safety = await s.f.idOf("Safety Research");
  });

  async function simulate(who: "admin" | "other", body: Record<string, unknown>): Promise<BudgetSimulation> {
    const res = await s.f.call(who, "POST", "/v1/budgets/simulate", body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }
  const thisCycle = (sim: BudgetSimulation) => sim.alerts.filter((a) => a.day >= utcDay(monthBack(0, 1)));

  it("predicts the thresholds the live budget then triggers, and the hard limit it then enforces", async () => {
    await b.spend(s.f.acmeId, redTeam, 30);
    await b.spend(s.f.acmeId, safety, 30);
    const proposal = {
      scope: "organization",
      amount: "100",
      thresholds: [25, 50, 100],
      hard_limit: true,
      days: 30,
    };
    const before = await simulate("admin", proposal);
    const today = utcDay(new Date());
    expect(thisCycle(before).map((a) => [a.threshold, a.day, a.spent])).toEqual([
      [25, today, "60.00"],
      [50, today, "60.00"],
    ]);
    expect(before.blocks).toEqual([]);
    expect(before.days.at(-1)).toMatchObject({ day: today, cycle_spend: "60.00", blocked: false });
    expect(before.days).toHaveLength(30);

    const { days: _days, ...budget } = proposal;
    const live = await b.createBudget("admin", budget);
    expect(live.triggered_thresholds).toEqual(thisCycle(before).map((a) => a.threshold));

    await b.spend(s.f.acmeId, redTeam, 45);
    const after = await simulate("admin", proposal);
    expect(thisCycle(after).map((a) => a.threshold)).toEqual([25, 50, 100]);
    expect((await b.budget("admin", live.budget_uuid)).triggered_thresholds).toEqual([25, 50, 100]);
    // Reached today: blocked now, as the live limit is.
    expect(after.blocks).toMatchObject([{ reached_on: today, ongoing: true, runs_refused: 0 }]);
    expect(after.days.at(-1)?.blocked).toBe(true);
    const run = await s.f.call("admin", "POST", "/v1/eval-runs", { workspace_uuid: safety });
    expect(run.statusCode).toBe(402);

    // Nothing is stored by a simulation: still the one budget.
    expect((await s.f.call("admin", "GET", "/v1/budgets")).json().budgets).toHaveLength(1);
    await s.f.call("admin", "DELETE", `/v1/budgets/${live.budget_uuid}`);
  });

  it("replays only the caller's organization, and refuses what a budget create refuses", async () => {
    const globex = await simulate("other", { scope: "organization", amount: "0.01", days: 366 });
    expect(globex.alerts).toEqual([]);
    expect(globex.days.every((d) => d.spend === "0.00")).toBe(true);
    const theirs = await s.f.call("other", "POST", "/v1/budgets/simulate", {
      scope: "workspace",
      workspace_uuid: safety,
      amount: "1",
    });
    expect(theirs.statusCode).toBe(404);
    const member = await s.f.call("member", "POST", "/v1/budgets/simulate", {
      scope: "organization",
      amount: "1",
    });
    expect(member.statusCode).toBe(403);
    for (const [body, message] of [
      [{ scope: "organization", amount: "1", days: 0 }, "days must be a whole number of days from 1 to 366."],
      [
        { scope: "organization", amount: "1", days: 367 },
        "days must be a whole number of days from 1 to 366.",
      ],
      [
        { scope: "organization", amount: "1", days: 1.5 },
        "days must be a whole number of days from 1 to 366.",
      ],
      [
        { scope: "workspace", amount: "1" },
        'workspace_uuid is required for a budget with scope "workspace".',
      ],
      [{ scope: "organization", amount: "-1" }, "amount must be a USD decimal"],
    ] as const) {
      const res = await s.f.call("admin", "POST", "/v1/budgets/simulate", body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toContain(message);
    }
  });
});

describe.each(backends())("budget simulation of a past cycle on $name", (backend) => {
  const h = productWithWorkspaces(backend);
  let db: TestProduct["database"]["db"];
  let redTeam = "";
  let accuracy = "";
  beforeAll(async () => {
    db = h.p.database.db;
    await setSamplePrices(db);
    await addCycle(h.p, h.f.acmeId, utcDay(monthBack(2, 1)), null);
    redTeam = await h.f.idOf("Red Team");
    accuracy = await h.f.idOf("Accuracy Benchmarks");
  });
  async function simulate(who: "admin", body: Record<string, unknown>): Promise<BudgetSimulation> {
    const res = await h.f.call(who, "POST", "/v1/budgets/simulate", body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  it("blocks a past cycle from the day the amount was reached to its end, with the runs refused and the spend after", async () => {
    const ev = (id: string, at: Date, usd: number) => ({
      event_id: `sim-${id}`,
      occurred_at: at.toISOString(),
      operation: "generation",
      eval_type: "accuracy",
      workspace_uuid: accuracy,
      quantity: Math.round(usd * 100),
    });
    await sendAsOperator(h.p, h.f.acmeId, [
      ev("a", monthBack(2, 3), 15),
      ev("b", monthBack(2, 10), 10),
      ev("c", monthBack(2, 15), 4),
    ]);
    for (const at of [monthBack(2, 2), monthBack(2, 12), monthBack(2, 20)])
      await db.execute(sql`
        insert into eval_runs (organization_uuid, workspace_uuid, started_at)
        values (${h.f.acmeId}, ${accuracy}, ${at.toISOString()})`);
    // A run of another workspace in the same days: not refused by this workspace's budget.
    await db.execute(sql`
      insert into eval_runs (organization_uuid, workspace_uuid, started_at)
      values (${h.f.acmeId}, ${redTeam}, ${monthBack(2, 12).toISOString()})`);

    // The usage was billed while its cycle was open; that cycle is closed since and the next one open.
    await closeCycle(db, h.f.acmeId, { endDate: utcDay(monthBack(1, 1)) });
    const sim = await simulate("admin", {
      scope: "workspace",
      workspace_uuid: accuracy,
      amount: "20",
      thresholds: [50, 100],
      hard_limit: true,
      days: 366,
    });
    const start = utcDay(monthBack(2, 1));
    expect(sim.alerts.filter((a) => a.cycle_start === start)).toEqual([
      { threshold: 50, cycle_start: start, day: utcDay(monthBack(2, 3)), spent: "15.00" },
      { threshold: 100, cycle_start: start, day: utcDay(monthBack(2, 10)), spent: "25.00" },
    ]);
    const block = sim.blocks.find((x) => x.cycle_start === start);
    expect(block).toEqual({
      cycle_start: start,
      reached_on: utcDay(monthBack(2, 10)),
      from: monthBack(2, 11, 0).toISOString(),
      until: monthBack(1, 1, 0).toISOString(),
      hours: (monthBack(1, 1, 0).getTime() - monthBack(2, 11, 0).getTime()) / 3_600_000,
      ongoing: false,
      runs_refused: 2,
      spend_avoided: "4.00",
    });
    // The same replay without a hard limit fires the same alerts and blocks nothing.
    const soft = await simulate("admin", {
      scope: "workspace",
      workspace_uuid: accuracy,
      amount: "20",
      thresholds: [50, 100],
      days: 366,
    });
    expect(soft.alerts).toEqual(sim.alerts);
    expect(soft).toMatchObject({ blocks: [], runs_refused: 0, spend_avoided: "0.00" });
  });
});
