import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUsdExact } from "../../contract/money";
import { closeCycle } from "../../server/metering/billing/billing";
import { groupTotals, listCycles } from "../../server/metering/billing/cycles";
import { ingestUsage } from "../../server/metering/ingestion/ingest";
import { closedCycleAt } from "../../server/metering/ingestion/late-usage";
import { listPriceRules, setPriceRule } from "../../server/metering/pricing/prices";
import { matchPriceRule } from "../../server/metering/pricing/rule-matching";
import { backends, startProduct, type TestProduct } from "./harness";
import { addCycle } from "./usage-setup";

/**
 * Random streams of usage batches (duplicates, events no rule prices yet, events of cycles closed
 * since), price rules set at random valid_from days, and cycles closed between them. After every
 * step: no accepted event is lost or counted twice (priced or awaiting, never both, its key taken
 * once); the events' costs equal each rollup and the bill of every cycle, to the micro-dollar; and
 * they add up to what the current price list makes the priced events cost — the open cycle by
 * re-rating each event, the closed cycles through the correction lines billed in the open one.
 * Operator charges sent with an explicit cost — often exactly quantity × the current unit price,
 * which an arithmetic test would take for rule-priced usage — keep their cost through every change.
 */
describe.each(backends())("re-rating keeps every event once and every total exact on $name", (backend) => {
  let p: TestProduct;
  beforeAll(async () => {
    p = await startProduct(backend);
  });
  afterAll(async () => p?.dispose());

  const OPERATIONS = ["op-a", "op-b", "op-c"];
  const FIRST = Date.parse("2026-08-01T00:00:00Z");
  const DAYS = 110; // to Nov 19, before today
  const BOUNDARIES = ["2026-09-01", "2026-10-01", "2026-11-01"];
  const dayAt = (d: number, hour = 12) => new Date(FIRST + d * 86_400_000 + hour * 3_600_000);
  const event = fc.record({
    id: fc.integer({ min: 0, max: 40 }),
    operation: fc.constantFrom(...OPERATIONS),
    quantity: fc.integer({ min: 1, max: 5 }),
    day: fc.integer({ min: 0, max: DAYS - 1 }),
  });
  const step = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("batch" as const),
        events: fc.array(event, { maxLength: 10 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("rule" as const),
        operation: fc.constantFrom(...OPERATIONS),
        micros: fc.integer({ min: 0, max: 999_999 }),
        day: fc.integer({ min: 0, max: DAYS - 1 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("close" as const) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("charge" as const),
        operation: fc.constantFrom(...OPERATIONS),
        quantity: fc.integer({ min: 1, max: 5 }),
        day: fc.integer({ min: 0, max: DAYS - 1 }),
        // Mostly the very cost the rule would give it; else any small amount.
        equal: fc.boolean(),
        micros: fc.integer({ min: -999_999, max: 999_999 }),
      }),
    },
  );

  type Rows<T> = { rows: T[] };
  let run = 0;
  // What the runs exercised: the property means little if no run billed late usage or a correction.
  const seen = { late: 0, corrections: 0, rerated: 0, equalCharges: 0 };

  it("bills a closed cycle's difference once (a worked example of the steps below)", async () => {
    const db = p.database.db;
    const org = "org-rerate-example";
    await addCycle(p, org, "2026-08-01", null);
    await setPriceRule(db, {
      organizationUuid: org,
      operation: "op-a",
      unitPrice: 100n,
      validFrom: dayAt(0, 0),
    });
    const ev = {
      event_id: "x-1",
      occurred_at: dayAt(10).toISOString(),
      operation: "op-a",
      eval_type: "et-x",
      quantity: 3,
    };
    expect(await ingestUsage(db, org, [ev])).toMatchObject({ accepted: 1, late: 0 });
    await closeCycle(db, org, { endDate: BOUNDARIES[0], openNext: true });
    const set = await setPriceRule(db, {
      organizationUuid: org,
      operation: "op-a",
      unitPrice: 250n,
      validFrom: dayAt(5, 0),
    });
    expect(set.rerating.corrections).toMatchObject([{ events: 1, lines: 1, amountMicros: 450n }]);
  });

  it("accepts each event once and keeps events, rollups, bills and prices equal after every step", async () => {
    const db = p.database.db;
    const q = async <T>(text: ReturnType<typeof sql>) =>
      ((await db.execute(text)) as unknown as Rows<T>).rows;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 12 }), async (steps) => {
        const org = `org-rerate-prop-${++run}`;
        await addCycle(p, org, "2026-08-01", null);
        // op-a and op-b priced from the start (so closed cycles hold priced usage that later rules
        // correct); op-c awaits pricing until a step sets a rule for it.
        for (const [i, operation] of ["op-a", "op-b"].entries())
          await setPriceRule(db, {
            organizationUuid: org,
            operation,
            unitPrice: BigInt(1_001 + i),
            validFrom: dayAt(0, 0),
          });
        let closes = 0;
        const accepted = new Map<string, { operation: string; quantity: number; at: Date }>();
        // Operator charges: their cost as sent, which no price change may move.
        const charges = new Map<string, bigint>();

        // The oracle: the best rule of the current price list at the time the usage happened.
        const pricer = async () => {
          const rules = (await listPriceRules(db)).filter(
            (r) => r.organizationUuid === null || r.organizationUuid === org,
          );
          return (e: { operation: string; at: Date }) =>
            matchPriceRule(rules, {
              organizationUuid: org,
              operation: e.operation,
              evalType: "et-x",
              modality: "",
              ruleMetric: "eval",
              occurredAt: e.at,
            });
        };
        const check = async () => {
          const priceOf = await pricer();
          const events = await q<{ event_id: string; cost_micros: string; adjustment: boolean | string }>(
            sql`select event_id, cost_micros::text, adjustment from usage_events where organization_uuid = ${org}`,
          );
          const lines = events.filter((e) => e.event_id.startsWith("price-correction:"));
          const usage = events.filter(
            (e) => !e.event_id.startsWith("price-correction:") && !charges.has(e.event_id),
          );
          seen.corrections = Math.max(seen.corrections, lines.length);
          // What each event is, as stored: usage priced by a rule, or an adjustment (charges, lines).
          const isAdjustment = (e: { adjustment: boolean | string }) =>
            e.adjustment === true || e.adjustment === "t";
          expect(usage.filter(isAdjustment).map((e) => e.event_id)).toEqual([]);
          expect(events.filter((e) => !usage.includes(e) && !isAdjustment(e)).map((e) => e.event_id)).toEqual(
            [],
          );
          for (const [id, cost] of charges)
            expect([id, events.find((e) => e.event_id === id)?.cost_micros]).toEqual([id, String(cost)]);
          const awaiting = await q<{ event_id: string }>(
            sql`select event_id from usage_events_awaiting where organization_uuid = ${org}`,
          );
          const [keys] = await q<{ n: number }>(
            sql`select count(*)::int as n from usage_event_keys where organization_uuid = ${org}`,
          );
          // Every accepted event once: priced or awaiting, never both; its key taken once.
          const ids = [...usage.map((r) => r.event_id), ...awaiting.map((r) => r.event_id)].sort();
          expect(ids).toEqual([...accepted.keys()].sort());
          expect(keys?.n).toBe(accepted.size + events.length - usage.length);
          expect(events.length - usage.length).toBe(lines.length + charges.size);
          // Awaiting exactly when no rule prices it; the events and corrections add up to the
          // current price list's cost of the priced events.
          let expected = [...charges.values()].reduce((a, b) => a + b, 0n);
          for (const [id, e] of accepted) {
            const rule = priceOf(e);
            expect([id, awaiting.some((a) => a.event_id === id)]).toEqual([id, rule === null]);
            if (rule) expected += rule.unitPriceMicros * BigInt(e.quantity);
          }
          const total = events.reduce((s, r) => s + BigInt(r.cost_micros), 0n);
          expect(total).toBe(expected);
          // The rollups and the bills hold exactly the events.
          for (const table of ["usage_daily", "usage_daily_mid", "usage_daily_coarse"]) {
            const [sums] = await q<{ n: string; c: string }>(
              sql`select coalesce(sum(event_count), 0)::text as n, coalesce(sum(cost_micros_sum), 0)::text as c
                    from ${sql.identifier(table)} where organization_uuid = ${org}`,
            );
            expect([table, sums?.n, sums?.c]).toEqual([table, String(events.length), String(total)]);
          }
          let billed = 0n;
          for (const c of await listCycles(db, org)) {
            const t = await groupTotals(db, c);
            billed += t.groups.reduce((s, g) => s + g.totalMicros, t.unattributedMicros);
          }
          expect(billed).toBe(total);
        };

        for (const s of steps) {
          if (s.kind === "rule") {
            const set = await setPriceRule(db, {
              organizationUuid: org,
              operation: s.operation,
              unitPrice: BigInt(s.micros),
              validFrom: dayAt(s.day, 0),
            });
            seen.rerated += set.rerating.events;
          } else if (s.kind === "charge") {
            const at = dayAt(s.day);
            const rule = (await pricer())({ operation: s.operation, at });
            const cost = s.equal && rule ? rule.unitPriceMicros * BigInt(s.quantity) : BigInt(s.micros);
            if (s.equal && rule) seen.equalCharges += 1;
            const id = `c-${charges.size}`;
            const r = await ingestUsage(
              db,
              org,
              [
                {
                  event_id: id,
                  occurred_at: at.toISOString(),
                  operation: s.operation,
                  eval_type: "et-x",
                  quantity: s.quantity,
                  cost: formatUsdExact(cost),
                  notes: "Charge: property",
                },
              ],
              { adjustments: "unaudited" },
            );
            expect(r.rejected).toEqual([]);
            charges.set(id, cost);
          } else if (s.kind === "close") {
            const end = BOUNDARIES[closes];
            if (!end) continue;
            await closeCycle(db, org, { endDate: end, openNext: true });
            closes += 1;
          } else {
            const batch = s.events.map((e) => ({
              event_id: `e-${e.id}`,
              occurred_at: dayAt(e.day).toISOString(),
              operation: e.operation,
              eval_type: "et-x",
              quantity: e.quantity,
            }));
            const cycles = await listCycles(db, org);
            const fresh = new Map<string, { operation: string; quantity: number; at: Date }>();
            for (const e of s.events)
              if (!accepted.has(`e-${e.id}`) && !fresh.has(`e-${e.id}`))
                fresh.set(`e-${e.id}`, { operation: e.operation, quantity: e.quantity, at: dayAt(e.day) });
            const r = await ingestUsage(db, org, batch);
            expect(r.rejected).toEqual([]);
            expect(r.accepted).toBe(fresh.size);
            expect(r.duplicates).toBe(batch.length - fresh.size);
            // Late: priced now, and its day in a closed cycle; awaiting: no rule yet.
            const priceOf = await pricer();
            const priced = [...fresh.values()].filter((e) => priceOf(e) !== null);
            expect(r.awaiting_pricing).toBe(fresh.size - priced.length);
            expect(r.late).toBe(
              priced.filter((e) => closedCycleAt(cycles, e.at.toISOString().slice(0, 10))).length,
            );
            seen.late += r.late;
            for (const [id, e] of fresh) accepted.set(id, e);
          }
          await check();
        }
      }),
      { seed: 20261127, numRuns: 20, endOnFailure: true },
    );
    expect(seen.late).toBeGreaterThan(0);
    expect(seen.corrections).toBeGreaterThan(0);
    expect(seen.rerated).toBeGreaterThan(0);
    expect(seen.equalCharges).toBeGreaterThan(0);
  });
});
