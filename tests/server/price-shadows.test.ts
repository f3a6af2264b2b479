import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOperatorCommand } from "../../server/cli/operator-commands";
import { databaseOperatorBackend } from "../../server/cli/operator-database";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { backends, startProduct, type TestProduct } from "./harness";
import { setPriceAndWait } from "./job-wait";
import { addCycle, sendAsOperator } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

/**
 * Two prices that name equally many dimensions: the one naming the earlier dimension of the fixed
 * order (eval_type, operation, modality, rule_metric) wins whichever was set last, and setting a
 * price that other rules outrank says so (which rule, why, how many of the open cycle's events) in
 * the API's answer and on the command line.
 */
describe.each(backends())("overlapping prices on $name", (backend) => {
  let p: TestProduct;
  let f: Fixture;
  const op = "gen-shadow";
  const local = () => ({ authorization: `Bearer ${p.identity.ctx.backendApiKey}` });
  let perMetric = "";

  const setPrice = async (body: Record<string, unknown>) => {
    const res = await setPriceAndWait(p.api.app, local(), { organization_uuid: f.acmeId, ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const costs = async () =>
    (
      (await p.database.db.execute(sql`
        select eval_type, cost_micros::text as cost from usage_events
         where organization_uuid = ${f.acmeId} and operation = ${op} order by event_id`)) as unknown as {
        rows: { eval_type: string; cost: string }[];
      }
    ).rows.map((r) => `${r.eval_type} ${r.cost}`);

  beforeAll(async () => {
    p = await startProduct(backend);
    f = await setUpWorkspaces(p);
    // The organization's own price for generation-like evals, newer than the prices set below (as
    // the demo organization's `operation=generation rule_metric=eval`).
    perMetric = (
      await setPriceRule(p.database.db, {
        organizationUuid: f.acmeId,
        operation: op,
        ruleMetric: "eval",
        unitPrice: "0.05",
        validFrom: new Date("2026-10-15T00:00:00Z"),
      })
    ).priceRuleUuid;
    await addCycle(p, f.acmeId, "2026-11-01", null);
    const ev = (id: string, evalType: string) => ({
      event_id: id,
      occurred_at: "2026-11-10T10:00:00Z",
      operation: op,
      eval_type: evalType,
      quantity: 1,
    });
    await sendAsOperator(p, f.acmeId, [
      ev("s1", "safety"),
      ev("s2", "safety"),
      ev("s3", "safety"),
      ev("a1", "accuracy"),
      ev("a2", "accuracy"),
    ]);
  });
  afterAll(async () => p?.dispose());

  it("prices an eval type's events by the rule naming eval_type over an equally specific, newer one", async () => {
    expect(await costs()).toEqual([
      "accuracy 50000",
      "accuracy 50000",
      "safety 50000",
      "safety 50000",
      "safety 50000",
    ]);
    const set = await setPrice({
      operation: op,
      eval_type: "safety",
      unit_price_usd: "0.005",
      valid_from: "2026-01-01T00:00:00Z",
    });
    expect(set.rerating).toMatchObject({ events: 3, before_total: "0.15", after_total: "0.015" });
    expect(set.shadowed_by).toEqual([]);
    expect(await costs()).toEqual([
      "accuracy 50000",
      "accuracy 50000",
      "safety 5000",
      "safety 5000",
      "safety 5000",
    ]);
  });

  it("says which rules outrank a new price, why, and how many of the open cycle's events they price", async () => {
    const [byType] = (
      (await p.database.db.execute(sql`
        select price_rule_uuid::text as uuid from price_rules
         where organization_uuid = ${f.acmeId} and eval_type = 'safety' and valid_to is null`)) as unknown as {
        rows: { uuid: string }[];
      }
    ).rows;
    // Two dimensions, but rule_metric comes after operation: the operation+eval_type rule keeps them.
    const tied = await setPrice({ eval_type: "safety", rule_metric: "eval", unit_price_usd: "0.007" });
    expect(tied.rerating.events).toBe(0);
    expect(tied.shadowed_by).toEqual([
      {
        price_rule_uuid: byType?.uuid,
        organization_uuid: f.acmeId,
        operation: op,
        eval_type: "safety",
        modality: null,
        rule_metric: null,
        unit_price_usd: "0.005",
        version: 1,
        events: 3,
        reason: "dimension_order",
      },
    ]);
    // One dimension: every rule naming two outranks it; the most events first.
    const broad = await setPrice({ operation: op, unit_price_usd: "0.009" });
    expect(
      broad.shadowed_by.map((s: { price_rule_uuid: string; events: number; reason: string }) => s),
    ).toEqual([
      expect.objectContaining({ price_rule_uuid: byType?.uuid, events: 3, reason: "more_dimensions" }),
      expect.objectContaining({ price_rule_uuid: perMetric, events: 2, reason: "more_dimensions" }),
    ]);
    expect(await costs()).toEqual([
      "accuracy 50000",
      "accuracy 50000",
      "safety 5000",
      "safety 5000",
      "safety 5000",
    ]);
  });

  it("prints a warning line per outranking rule under price set", async () => {
    const [byType] = (
      (await p.database.db.execute(sql`
        select price_rule_uuid::text as uuid from price_rules
         where organization_uuid = ${f.acmeId} and eval_type = 'safety' and operation is not null`)) as unknown as {
        rows: { uuid: string }[];
      }
    ).rows;
    const lines: string[] = [];
    const code = await runOperatorCommand(
      {
        kind: "price",
        wait: true,
        input: { organizationUuid: f.acmeId, evalType: "safety", ruleMetric: "eval", unitPrice: "0.008" },
      },
      databaseOperatorBackend(p),
      { log: (l) => lines.push(l), error: (l) => lines.push(`error: ${l}`) },
    );
    expect(code).toBe(0);
    expect(lines.filter((l) => l.startsWith("Warning:"))).toEqual([
      `Warning: 3 events of the open cycle that this price fits are priced by rule ${byType?.uuid} (eval_type=safety operation=${op}, organization ${f.acmeId}, $0.005): it names as many dimensions, one of them earlier in the order eval_type, operation, modality, rule_metric.`,
    ]);
  });
});
