import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UsageSummary } from "../../contract/usage-schemas";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { keepsRecord, NO_FILTERS, type UsageFilters } from "../../server/metering/usage/filters";
import { backends, startProduct, type TestProduct } from "./harness";
import { usageQuery } from "./usage-reads";
import { addCycle, PAST, sendAsOperator } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

// The eval type filter is written as plain comparisons of the raw values (usage-sql.ts
// evalTypeFilter) instead of computing each row's group: for raw types in every spelling, named
// and not, each way the filter is read (records from raw events, the summary from the coarse
// rollup, and from the daily rollup when a jailbreak filter is set) keeps exactly the events the
// server's own rule (keepsRecord) keeps.

const RAW_TYPES = [
  "safety",
  "Safety",
  "SAFETY",
  "image_safety",
  "Image_Safety",
  "jailbreak",
  "accuracy",
  "Accuracy",
  "hallucination",
  "Hallucination",
  "HALLUCINATION",
  "bias",
  "Bias",
  "custom_check",
];

const CHOICES: string[][] = [
  ["accuracy"],
  ["hallucination"],
  ["HALLUCINATION"],
  ["Safety"],
  ["safety", "jailbreak"],
  ["image_safety"],
  ["bias"],
  ["Bias"],
  ["BIAS"],
  ["custom_check", "accuracy"],
  ["unknown_type"],
];

describe.each(backends())("eval type filter by raw values on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  let cycle = "";
  // Event i has raw type RAW_TYPES[i % n] and is a jailbreak attempt when i is odd.
  const sent = Array.from({ length: RAW_TYPES.length * 2 }, (_, i) => ({
    evalType: RAW_TYPES[i % RAW_TYPES.length] as string,
    isJailbreak: i % 2 === 1,
  }));

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    await setPriceRule(p.database.db, { operation: "generation", unitPrice: "0.01", validFrom: PAST });
    await sendAsOperator(
      p,
      fx.acmeId,
      sent.map((e, i) => ({
        event_id: `f${i}`,
        occurred_at: `2026-02-${String(1 + (i % 20)).padStart(2, "0")}T12:00:00Z`,
        operation: "generation",
        eval_type: e.evalType,
        is_jailbreak: e.isJailbreak,
        quantity: 1,
      })),
    );
    cycle = await addCycle(p, fx.acmeId, "2026-02-01", null);
  });
  afterAll(async () => p?.dispose());

  const get = async <T>(url: string): Promise<T> => {
    const res = await fx.call("admin", "GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json() as T;
  };
  const expected = (f: UsageFilters) =>
    sent.filter((e) =>
      keepsRecord(
        {
          workspaceUuid: null,
          evalType: e.evalType,
          operation: "generation",
          modality: "",
          isJailbreak: e.isJailbreak,
          hasGroundTruth: false,
        },
        f,
      ),
    ).length;

  it("keeps exactly the events of the chosen groups, from raw events and from both rollups", async () => {
    for (const evalTypes of CHOICES) {
      for (const jailbreak of [null, "non"] as const) {
        const f: UsageFilters = { ...NO_FILTERS, evalTypes, jailbreak };
        const query = usageQuery(f, { billing_cycle_uuid: cycle });
        const want = expected(f);
        const summary = await get<UsageSummary>(`/v1/usage/summary?${query}`);
        const records = await get<{ total: number }>(`/v1/usage/records?${query}&page_size=1`);
        expect([summary.totals.events, records.total], JSON.stringify(f)).toEqual([want, want]);
      }
    }
    // The choices are not vacuous: a named group keeps every spelling, another type only itself.
    expect(expected({ ...NO_FILTERS, evalTypes: ["accuracy"] })).toBe(10);
    expect(expected({ ...NO_FILTERS, evalTypes: ["Bias"] })).toBe(2);
  });
});
