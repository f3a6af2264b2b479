import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import type { UsageRecord } from "../../contract/usage-schemas";
import { generateUsageEvents } from "../../server/metering/ingestion/generate";
import { ingestUsage } from "../../server/metering/ingestion/ingest";
import { setPriceRule } from "../../server/metering/pricing/prices";
import {
  type FilterableRecord,
  keepsRecord,
  NO_FILTERS,
  type UsageFilters,
} from "../../server/metering/usage/filters";
import { backends, startProduct, type TestProduct } from "./harness";
import { allRecords, toFilterable, usageQuery, usdMicros } from "./usage-reads";
import { addCycle, PAST, sendAsOperator, setSixDecimalPrices } from "./usage-setup";
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

/**
 * Random streams of batches in which some events match no price rule, with price rules added
 * between them: no accepted event is lost or counted twice (each is either priced in usage_events
 * or awaiting pricing, never both, and its key is taken once), every event a rule covers is priced
 * at that rule's price, and the rollups equal the priced events to the micro-dollar.
 */
describe.each(backends())("usage awaiting pricing keeps every event once on $name", (backend) => {
  let p: TestProduct;
  beforeAll(async () => {
    p = await startProduct(backend);
  });
  afterAll(async () => p?.dispose());

  // Operations and eval types no default price matches: only the rules the stream adds price them.
  const OPERATIONS = ["op-a", "op-b", "op-c", "op-d"];
  const event = fc.record({
    id: fc.integer({ min: 0, max: 30 }),
    operation: fc.constantFrom(...OPERATIONS),
    evalType: fc.constantFrom("et-x", "et-y"),
    quantity: fc.integer({ min: 1, max: 5 }),
    day: fc.integer({ min: 1, max: 28 }),
  });
  const step = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("batch" as const),
        events: fc.array(event, { maxLength: 12 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("rule" as const),
        operation: fc.constantFrom(...OPERATIONS),
        micros: fc.integer({ min: 0, max: 999_999 }),
      }),
    },
  );

  type Rows<T> = { rows: T[] };
  let run = 0;

  it("accepts, prices and counts each event exactly once", async () => {
    const db = p.database.db;
    const q = async <T>(text: ReturnType<typeof sql>) =>
      ((await db.execute(text)) as unknown as Rows<T>).rows;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const org = `org-awaiting-prop-${++run}`;
        const accepted = new Map<string, { operation: string; quantity: number }>();
        const prices = new Map<string, bigint>();
        for (const s of steps) {
          if (s.kind === "rule") {
            // One rule per operation: a second one from the same date would tie with it.
            if (prices.has(s.operation)) continue;
            await setPriceRule(db, {
              organizationUuid: org,
              operation: s.operation,
              unitPrice: BigInt(s.micros),
              validFrom: PAST,
            });
            prices.set(s.operation, BigInt(s.micros));
            continue;
          }
          const batch = s.events.map((e) => ({
            event_id: `e-${e.id}`,
            occurred_at: `2026-03-${String(e.day).padStart(2, "0")}T12:00:00Z`,
            operation: e.operation,
            eval_type: e.evalType,
            quantity: e.quantity,
          }));
          const fresh = new Map<string, { operation: string; quantity: number }>();
          for (const e of s.events)
            if (!accepted.has(`e-${e.id}`) && !fresh.has(`e-${e.id}`))
              fresh.set(`e-${e.id}`, { operation: e.operation, quantity: e.quantity });
          const r = await ingestUsage(db, org, batch);
          expect(r.rejected).toEqual([]);
          expect(r.accepted).toBe(fresh.size);
          expect(r.duplicates).toBe(batch.length - fresh.size);
          expect(r.awaiting_pricing).toBe([...fresh.values()].filter((e) => !prices.has(e.operation)).length);
          for (const [id, e] of fresh) accepted.set(id, e);
        }

        const priced = await q<{ event_id: string; cost_micros: string }>(
          sql`select event_id, cost_micros::text from usage_events where organization_uuid = ${org}`,
        );
        const awaiting = await q<{ event_id: string }>(
          sql`select event_id from usage_events_awaiting where organization_uuid = ${org}`,
        );
        const [keys] = await q<{ n: number }>(
          sql`select count(*)::int as n from usage_event_keys where organization_uuid = ${org}`,
        );
        const ids = [...priced.map((r) => r.event_id), ...awaiting.map((r) => r.event_id)];
        // Every accepted event once, priced or awaiting, never both; its key taken once.
        expect(ids.sort()).toEqual([...accepted.keys()].sort());
        expect(keys?.n).toBe(accepted.size);
        // Priced exactly when its operation has a rule, at that rule's price.
        for (const [id, e] of accepted) {
          const price = prices.get(e.operation);
          const row = priced.find((r) => r.event_id === id);
          if (price === undefined) expect(row, id).toBeUndefined();
          else expect(row?.cost_micros, id).toBe(String(price * BigInt(e.quantity)));
        }
        // The rollups hold the priced events, to the micro-dollar.
        const cost = priced.reduce((sum, r) => sum + BigInt(r.cost_micros), 0n);
        for (const table of ["usage_daily", "usage_daily_mid", "usage_daily_coarse"]) {
          const [sums] = await q<{ n: string; c: string }>(
            sql`select coalesce(sum(event_count), 0)::text as n, coalesce(sum(cost_micros_sum), 0)::text as c
                  from ${sql.identifier(table)} where organization_uuid = ${org}`,
          );
          expect([table, sums?.n, sums?.c]).toEqual([table, String(priced.length), String(cost)]);
        }
      }),
      { seed: 20261127, numRuns: 25, endOnFailure: true },
    );
  });
});
