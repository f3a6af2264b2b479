import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { backends, startProduct, type TestProduct } from "./harness";
import { PAST, sendAsOperator } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

/**
 * The operator's billing cycles carry the figures of the customer's totals strip — total cost,
 * balance beyond prepaid credit, paid — and what is still due, computed by the same code as the
 * customer's billing cycles.
 */
describe.each(backends())("operator billing cycles' totals on $name", (backend) => {
  let p: TestProduct;
  let f: Fixture;
  const local = () => ({ authorization: `Bearer ${p.identity.ctx.backendApiKey}` });
  const op = (method: "GET" | "POST" | "PUT", url: string, payload?: unknown) =>
    f.call("none", method, url, payload, local());
  const cyclesUrl = () => `/v1/operator/organizations/${f.acmeId}/billing-cycles`;

  beforeAll(async () => {
    p = await startProduct(backend);
    f = await setUpWorkspaces(p);
    await setPriceRule(p.database.db, {
      organizationUuid: f.acmeId,
      operation: "totals-op",
      unitPrice: "1.5",
      validFrom: PAST,
    });
  });
  afterAll(async () => p?.dispose());

  it("lists total cost, balance, paid and amount due per cycle, as the customer sees them", async () => {
    const opened = await op("POST", cyclesUrl(), { start_date: "2026-10-01" });
    expect(opened.statusCode, opened.body).toBe(201);
    expect(opened.json()).toMatchObject({
      total_cost_usd: "0.00",
      balance_usd: "0.00",
      paid_usd: "0.00",
      amount_due_usd: "0.00",
    });
    // Red Team in a group with $10 prepaid; Safety Research in none; some usage without a workspace.
    const group = await op("PUT", `/v1/operator/organizations/${f.acmeId}/workspace-groups`, {
      name: "Labs",
      prepaid_usd: "10",
      workspaces: ["Red Team"],
    });
    expect(group.statusCode, group.body).toBe(200);
    const red = await f.idOf("Red Team");
    const safety = await f.idOf("Safety Research");
    const ev = (id: string, day: string, quantity: number, workspace?: string) => ({
      event_id: id,
      occurred_at: `${day}T10:00:00Z`,
      operation: "totals-op",
      eval_type: "safety",
      quantity,
      ...(workspace ? { workspace_uuid: workspace } : {}),
    });
    await sendAsOperator(p, f.acmeId, [
      ev("oct-red", "2026-10-05", 4, red), // $6, within the $10 prepaid
      ev("oct-safety", "2026-10-06", 2, safety), // $3
      ev("oct-none", "2026-10-07", 1), // $1.5 unattributed
      ev("nov-red", "2026-11-03", 10, red), // $15: $5 beyond the prepaid
    ]);
    const closed = await op("POST", `${cyclesUrl()}/close`, { end_date: "2026-11-01" });
    expect(closed.statusCode, closed.body).toBe(200);
    // The answer of closing carries the same figures.
    expect(closed.json().closed).toMatchObject({
      total_cost_usd: "10.50",
      balance_usd: "4.50",
      amount_due_usd: "4.50",
    });
    const october = closed.json().closed.billing_cycle_uuid;
    const paid = await op("POST", `/v1/operator/organizations/${f.acmeId}/payments`, {
      amount_usd: "4",
      billing_cycle_uuid: october,
    });
    expect(paid.statusCode, paid.body).toBe(201);

    const listed = await op("GET", cyclesUrl());
    expect(listed.statusCode, listed.body).toBe(200);
    const cycles = listed.json().billing_cycles;
    expect(cycles).toEqual([
      expect.objectContaining({
        start_date: "2026-11-01",
        status: "open",
        total_cost_usd: "15.00",
        balance_usd: "5.00",
        paid_usd: "0.00",
        amount_due_usd: "5.00",
      }),
      expect.objectContaining({
        billing_cycle_uuid: october,
        status: "closed",
        total_cost_usd: "10.50",
        // Labs: $6 of $10 prepaid (no balance); the default group $3; unattributed $1.50.
        balance_usd: "4.50",
        paid_usd: "4.00",
        amount_due_usd: "0.50",
      }),
    ]);

    // The customer's billing cycles: the same total and paid amount.
    const customer = await f.call("admin", "GET", "/v1/accounts/organization/billingcycles");
    expect(customer.statusCode, customer.body).toBe(200);
    for (const c of customer.json() as {
      billing_cycle_uuid: string;
      total_cost: string;
      paid_amount_usd: string;
    }[]) {
      const mine = cycles.find(
        (o: { billing_cycle_uuid: string }) => o.billing_cycle_uuid === c.billing_cycle_uuid,
      );
      expect(mine).toMatchObject({ total_cost_usd: c.total_cost, paid_usd: c.paid_amount_usd });
    }
  });
});
