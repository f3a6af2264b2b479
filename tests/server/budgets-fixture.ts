import { expect } from "vitest";
import type { Budget } from "../../contract/budgets";
import type { BudgetMail } from "../../server/metering/budgets/mail";
import { createBudgetNotifier, registerBudgetNotifier } from "../../server/metering/budgets/notify";
import { monthStart } from "../../server/metering/usage/filters";
import type { TestProduct } from "./harness";
import { addCycle, sendAsOperator, setSamplePrices } from "./usage-setup";
import type { Fixture } from "./workspaces-fixture";

/**
 * The budget suites' setup: sample prices (generation $0.01), an open billing cycle from this
 * month's 1st for both organizations, and the product's budget emails captured in `mails` instead
 * of being sent (deliveries run after each commit, as in the product; `settled` waits for them).
 */
export async function setUpBudgets(p: TestProduct, f: Fixture) {
  const db = p.database.db;
  await setSamplePrices(db);
  const start = monthStart(new Date());
  await addCycle(p, f.acmeId, start, null);
  await addCycle(p, f.globexId, start, null);
  const mails: BudgetMail[] = [];
  const notifier = createBudgetNotifier(db, {
    gateway: p.identity.gateway,
    send: async (m) => {
      mails.push(m);
    },
    consoleUrl: "http://localhost:3000/",
    logger: p.api.app.log,
    sweep: false,
  });
  registerBudgetNotifier(db, notifier);

  let seq = 0;
  /**
   * Usage of `usd` dollars (whole cents) in the workspace (null: none) sent by the provider's
   * eval service path (priced generation events, $0.01 each); `cost` sends a credit or charge.
   */
  async function spend(organizationUuid: string, workspaceUuid: string | null, usd: number) {
    seq += 1;
    const event = {
      event_id: `spend-${seq}-${Math.random().toString(36).slice(2)}`,
      occurred_at: new Date(Date.now() - 1000).toISOString(),
      operation: "generation",
      eval_type: "accuracy",
      ...(workspaceUuid ? { workspace_uuid: workspaceUuid } : {}),
      ...(usd < 0 ? { cost: String(usd), notes: "Credit" } : { quantity: Math.round(usd * 100) }),
    };
    await sendAsOperator(p, organizationUuid, [event]);
    await notifier.settled();
    return event;
  }

  async function createBudget(who: "admin" | "other", body: Record<string, unknown>): Promise<Budget> {
    const res = await f.call(who, "POST", "/v1/budgets", body);
    expect(res.statusCode, res.body).toBe(201);
    await notifier.settled();
    return res.json();
  }

  async function budget(who: "admin" | "other", uuid: string): Promise<Budget> {
    const res = await f.call(who, "GET", `/v1/budgets/${uuid}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  /** The mails sent since the last call, as "to: subject" lines. */
  const takeMails = () => mails.splice(0).map((m) => `${m.to}: ${m.subject}`);

  return { db, notifier, mails, takeMails, spend, createBudget, budget };
}
