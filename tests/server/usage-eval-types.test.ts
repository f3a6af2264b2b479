import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import { CSV_HEADERS, csvCells } from "../../contract/usage-csv";
import type { UsageRecord, UsageSeries, UsageSummary } from "../../contract/usage-schemas";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { backends, startProduct, type TestProduct } from "./harness";
import { addCycle, PAST, sendAsOperator } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

// Eval types are grouped on the server: hallucination counts as accuracy (shown as Accuracy) in
// the summary's ranking, the series, the filter options and the records alike. The raw types are
// chosen so that grouping changes the ranking: safety costs more than accuracy or hallucination
// alone, less than the two together.

const event = (id: string, evalType: string, quantity: number, extra: Record<string, unknown> = {}) => ({
  event_id: id,
  occurred_at: `2026-02-${String(3 + Number(id.replace(/\D/g, "") || 0)).padStart(2, "0")}T12:00:00Z`,
  operation: "generation",
  eval_type: evalType,
  quantity,
  ...extra,
});

describe.each(backends())("eval type groups on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  let cycle = "";

  const get = async <T>(url: string): Promise<T> => {
    const res = await fx.call("admin", "GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json() as T;
  };
  const records = async (query = "") =>
    (
      await get<{ records: UsageRecord[] }>(
        `/v1/usage/records?billing_cycle_uuid=${cycle}&page_size=500${query}`,
      )
    ).records;

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    await setPriceRule(p.database.db, { operation: "generation", unitPrice: "0.01", validFrom: PAST });
    await sendAsOperator(p, fx.acmeId, [
      event("e1", "safety", 5, { name: 'Red "team", round 1', created_by: "=SUM(A1)" }), // $0.05
      event("e2", "accuracy", 3), // $0.03
      event("e3", "hallucination", 4, { notes: "first line\nsecond line" }), // $0.04
      event("e4", "Hallucination", 1), // $0.01, another spelling of the same group
      event("e5", "jailbreak", 1), // $0.01
      event("e6", "hallucination", 1, { cost: "-0.02", notes: "-credit" }), // a credit
    ]);
    cycle = await addCycle(p, fx.acmeId, "2026-02-01", null);
  });
  afterAll(async () => p?.dispose());

  it("ranks accuracy and hallucination as one Accuracy row in the summary", async () => {
    const s = await get<UsageSummary>(`/v1/usage/summary?billing_cycle_uuid=${cycle}`);
    expect(s.by_eval_type.map((t) => [t.eval_type, t.cost])).toEqual([
      ["accuracy", "0.06"], // 0.03 + 0.04 + 0.01 - 0.02
      ["safety", "0.05"],
      ["jailbreak", "0.01"],
    ]);
    expect(s.by_eval_type[0]).toMatchObject({
      events: 4,
      count: 9,
      adjustments: { events: 1, count: 1, cost: "-0.02" },
    });
    expect(s.filter_options.eval_types).toEqual(["accuracy", "jailbreak", "safety"]);
  });

  it("answers the same groups in the series, for every grouping", async () => {
    const s = await get<UsageSummary>(`/v1/usage/summary?billing_cycle_uuid=${cycle}`);
    for (const grouping of ["daily", "weekly", "monthly"]) {
      const series = await get<UsageSeries>(
        `/v1/usage/series?billing_cycle_uuid=${cycle}&grouping=${grouping}`,
      );
      const sums = new Map<string, bigint>();
      for (const b of series.buckets) {
        const types = b.eval_types.map((t) => t.eval_type);
        expect(new Set(types).size, `${grouping} ${b.date}`).toBe(types.length);
        for (const t of b.eval_types)
          sums.set(t.eval_type, (sums.get(t.eval_type) ?? 0n) + parseUsd(t.price));
      }
      expect([...sums].map(([type, micros]) => [type, micros]).sort(), grouping).toEqual(
        s.by_eval_type.map((t) => [t.eval_type, parseUsd(t.cost)]).sort(),
      );
    }
  });

  it("filters and sorts the records by group, and the summary agrees with them", async () => {
    const all = await records();
    expect(all).toHaveLength(6);
    for (const chosen of ["accuracy", "hallucination", "HALLUCINATION"]) {
      const kept = await records(`&eval_type=${chosen}`);
      expect(kept.map((r) => r.eval_type).sort(), chosen).toEqual([
        "Hallucination",
        "accuracy",
        "hallucination",
        "hallucination",
      ]);
      const s = await get<UsageSummary>(`/v1/usage/summary?billing_cycle_uuid=${cycle}&eval_type=${chosen}`);
      expect(s.totals.events, chosen).toBe(kept.length);
      expect(
        s.by_eval_type.map((t) => t.eval_type),
        chosen,
      ).toEqual(["accuracy"]);
    }
    // Sorted by eval type, a group's records are together (hallucination sorts as accuracy).
    const sorted = (await records("&sort=eval_type")).map((r) => r.eval_type);
    expect(sorted.slice(0, 4).sort()).toEqual([
      "Hallucination",
      "accuracy",
      "hallucination",
      "hallucination",
    ]);
    expect(sorted.slice(4)).toEqual(["jailbreak", "safety"]);
  });

  it("exports the records in the contract's columns, quoted so they read back unchanged", async () => {
    const res = await fx.call("admin", "GET", `/v1/usage/export.csv?billing_cycle_uuid=${cycle}`);
    expect(res.statusCode).toBe(200);
    expect(res.body.endsWith("\r\n")).toBe(true);
    const parsed = Papa.parse<string[]>(res.body, { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data[0]).toEqual(CSV_HEADERS);
    // Newest first, as the records' default order.
    expect(parsed.data.slice(1)).toEqual((await records()).map(csvCells));
    expect(res.body).toContain('"Red ""team"", round 1"');
    expect(res.body).toContain(",'=SUM(A1),");
  });
});
