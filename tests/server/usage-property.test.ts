import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import type { UsageRecord } from "../../contract/usage-schemas";
import {
  type FilterableRecord,
  keepsRecord,
  NO_FILTERS,
  type UsageFilters,
} from "../../server/metering/filters";
import { generateUsageEvents } from "../../server/metering/generate";
import { backends, startProduct, type TestProduct } from "./harness";
import { allRecords, toFilterable, usageQuery, usdMicros } from "./usage-reads";
import { addCycle, sendAsOperator, setSixDecimalPrices } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

const EVENTS = 1200;

/**
 * For random filter combinations over generated usage, the three views of the dashboard agree to
 * the micro-dollar: the summary's totals, the sum of every record page, and the sum of the series
 * buckets in each grouping. Prices with six decimals make any rounding or float sum show.
 */
describe.each(backends())("usage totals reconcile for random filters on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  let cycle = "";
  const ws: string[] = [];

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    await setSixDecimalPrices(p.database.db);
    for (const name of ["Safety Research", "Red Team", "Accuracy Benchmarks"]) ws.push(await fx.idOf(name));
    cycle = await addCycle(p, fx.acmeId, "2026-02-01", null);
    const events = [
      ...generateUsageEvents({
        seed: 99,
        count: EVENTS,
        from: new Date("2026-02-01T00:00:00Z"),
        to: new Date("2026-03-15T00:00:00Z"),
        workspaceUuids: ws,
        createdBy: ["ada@acme.test", "max@acme.test"],
        idPrefix: "prop",
      }),
    ];
    // Sent by the operator (the backend API key): the generated events carry a few credits.
    expect(await sendAsOperator(p, fx.acmeId, events)).toMatchObject({ accepted: EVENTS, rejected: [] });
  });
  afterAll(async () => p?.dispose());

  const get = async (url: string) => {
    const res = await fx.call("admin", "GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json();
  };

  const subset = <T>(items: readonly T[]) => fc.subarray([...items], { minLength: 0 });
  // Built when called: the workspace uuids exist only after beforeAll.
  const filters = () =>
    fc.record({
      workspaceUuids: subset([...ws, "00000000-0000-4000-8000-00000000dead"]),
      evalTypes: subset(["safety", "jailbreak", "accuracy", "image_safety", "hallucination", "bias", "none"]),
      operations: subset(["generation", "scoring", "other"]),
      modalities: subset(["text", "image", "audio", "IMAGE"]),
      groundTruth: fc.constantFrom(null, "with", "without"),
      jailbreak: fc.constantFrom(null, "only", "non"),
      search: fc.constantFrom(null, "safety", "v2", "ada@", "scor", "Red", "12", "credit"),
    });

  it("summary = records = series buckets, exactly, for every filter combination tried", async () => {
    let nonEmpty = 0;
    // Every record of the cycle, unfiltered: the oracle for which records a filter keeps.
    const everything: (FilterableRecord & { id: string })[] = (
      await allRecords<UsageRecord>(get, cycle, NO_FILTERS)
    ).map((r) => ({ id: r.usage_event_uuid, ...toFilterable(r) }));
    expect(everything).toHaveLength(EVENTS);
    await fc.assert(
      fc.asyncProperty(filters(), async (r) => {
        const f: UsageFilters = {
          ...NO_FILTERS,
          workspaceUuids: r.workspaceUuids,
          evalTypes: r.evalTypes,
          operations: r.operations,
          modalities: r.modalities,
          groundTruth: (r.groundTruth ?? undefined) as UsageFilters["groundTruth"],
          jailbreak: (r.jailbreak ?? undefined) as UsageFilters["jailbreak"],
          search: r.search ?? undefined,
        } as UsageFilters;
        const records: { usage_event_uuid: string; cost: string; quantity: number }[] = await allRecords(
          get,
          cycle,
          f,
        );
        // Without a search the total comes from the rollup and the rows from the raw events: both
        // must keep exactly the records the filter rules keep.
        if (!f.search)
          expect(records.map((x) => x.usage_event_uuid).sort()).toEqual(
            everything
              // The API lower-cases modality choices ("IMAGE" picks "image").
              .filter((x) => keepsRecord(x, { ...f, modalities: f.modalities.map((m) => m.toLowerCase()) }))
              .map((x) => x.id)
              .sort(),
          );
        const cost = usdMicros(records.map((x) => x.cost));
        const count = records.reduce((s, x) => s + x.quantity, 0);
        if (records.length) nonEmpty += 1;
        const summary = await get(`/v1/usage/summary?${usageQuery(f, { billing_cycle_uuid: cycle })}`);
        expect(summary.totals.events).toBe(records.length);
        expect(summary.totals.count).toBe(count);
        expect(parseUsd(summary.totals.cost)).toBe(cost);
        expect(usdMicros(summary.by_operation.map((o: { cost: string }) => o.cost))).toBe(cost);
        for (const grouping of ["daily", "weekly", "monthly"]) {
          const series = await get(
            `/v1/usage/series?${usageQuery(f, { billing_cycle_uuid: cycle, grouping })}`,
          );
          const buckets = series.buckets as { events: number; total_count: number; total_price: string }[];
          expect(buckets.reduce((s, b) => s + b.events, 0)).toBe(records.length);
          expect(buckets.reduce((s, b) => s + b.total_count, 0)).toBe(count);
          expect(usdMicros(buckets.map((b) => b.total_price))).toBe(cost);
        }
      }),
      { seed: 20260514, numRuns: 30, endOnFailure: true },
    );
    // The property means little if every combination filtered everything out.
    expect(nonEmpty).toBeGreaterThan(5);
  });
});
