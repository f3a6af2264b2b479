import fc from "fast-check";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsd } from "../../contract/money";
import { BUCKET_WIDTHS, REPORT_GROUP_BY } from "../../contract/usage-report";
import { evalRuns } from "../../server/db/schema";
import { generateUsageEvents } from "../../server/metering/ingestion/generate";
import { NO_FILTERS, type UsageFilters } from "../../server/metering/usage/filters";
import { backends, startProduct, type TestProduct } from "./harness";
import { usageQuery, usdMicros } from "./usage-reads";
import { addCycle, sendAsOperator, setSixDecimalPrices } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

const EVENTS = 1200;
/** The keys (ids) the recorded runs were started with; null: a bearer token. */
const KEYS = ["key-report-a", "key-report-b", null];

type Row = Record<string, string | number | null> & { events: number; count: number; cost: string };
type Page = { data: Row[]; totals: Row; total_rows: number; next_page: string | null };

/**
 * For random filters, bucket widths, group_by sets and billing cycles over generated usage, the
 * report (whichever table answers it: coarse or full daily rollup, or raw events) adds up to the
 * dashboard's Usage Summary of the same cycle and filters to the micro-dollar: in total, per
 * workspace, per eval type group and per operation, in JSON pages and in CSV. Prices with six
 * decimals and generated credits make any rounding, lost row or double count show.
 */
describe.each(backends())("usage report reconciles with the dashboard on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  const ws: string[] = [];
  /** Two cycles, with their periods as the report asks for them. */
  const cycles: { uuid: string; start: string; end: string }[] = [];

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    await setSixDecimalPrices(p.database.db);
    for (const name of ["Safety Research", "Red Team", "Accuracy Benchmarks"]) ws.push(await fx.idOf(name));
    const events = [
      ...generateUsageEvents({
        seed: 7,
        count: EVENTS,
        from: new Date("2026-02-01T00:00:00Z"),
        to: new Date("2026-03-15T00:00:00Z"),
        workspaceUuids: ws,
        createdBy: ["ada@acme.test", "max@acme.test", "=cmd|calc"],
        idPrefix: "rep",
      }),
    ];
    expect(await sendAsOperator(p, fx.acmeId, events)).toMatchObject({ accepted: EVENTS, rejected: [] });
    // Two thirds of the runs were started through the API: with one of two keys or a bearer token
    // (group_by api_key: a key's id or null); the rest (and events without a run) are not known.
    const runIds = [...new Set(events.map((e) => e.eval_run_uuid).filter((r): r is string => !!r))];
    const started = runIds.filter((_, i) => i % 3 !== 2);
    await p.database.db.insert(evalRuns).values(
      started.map((evalRunUuid, i) => ({
        evalRunUuid,
        organizationUuid: fx.acmeId,
        workspaceUuid: ws[0] as string,
        startedByApiKeyId: KEYS[i % KEYS.length] ?? null,
      })),
    );
    // Then a closed February (which takes no new usage) and an open cycle from March (the report's
    // period ends after its last usage).
    cycles.push({
      uuid: await addCycle(p, fx.acmeId, "2026-02-01", "2026-03-01"),
      start: "2026-02-01T00:00:00Z",
      end: "2026-03-01T00:00:00Z",
    });
    cycles.push({
      uuid: await addCycle(p, fx.acmeId, "2026-03-01", null),
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    });
  });
  afterAll(async () => p?.dispose());

  const get = async (url: string) => {
    const res = await fx.call("admin", "GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json();
  };

  const subset = <T>(items: readonly T[]) => fc.subarray([...items], { minLength: 0 });
  const inputs = () =>
    fc.record({
      cycle: fc.constantFrom(0, 1),
      width: fc.constantFrom(...BUCKET_WIDTHS),
      groupBy: subset(REPORT_GROUP_BY),
      pageSize: fc.constantFrom(37, 250, 1000),
      filters: fc.record({
        workspaceUuids: subset([...ws, "00000000-0000-4000-8000-00000000dead"]),
        evalTypes: subset(["safety", "jailbreak", "accuracy", "image_safety", "hallucination", "bias"]),
        operations: subset(["generation", "scoring", "other"]),
        modalities: subset(["text", "image", "audio", "IMAGE"]),
        groundTruth: fc.constantFrom(null, "with", "without"),
        jailbreak: fc.constantFrom(null, "only", "non"),
        search: fc.constantFrom(null, null, null, "safety", "ada@", "Red", "12", "credit"),
      }),
    });

  /** Sums of rows per key, exact. */
  const sumBy = (rows: Row[], key: (r: Row) => string) => {
    const m = new Map<string, { events: number; count: number; cost: bigint }>();
    for (const r of rows) {
      const k = key(r);
      const s = m.get(k) ?? { events: 0, count: 0, cost: 0n };
      m.set(k, { events: s.events + r.events, count: s.count + r.count, cost: s.cost + parseUsd(r.cost) });
    }
    return m;
  };
  const exact = (s: { events: number; count: number; cost: string }) => ({
    events: s.events,
    count: s.count,
    cost: parseUsd(s.cost),
  });

  it("report totals = summary totals, and per workspace, eval type and operation, to the micro-dollar", async () => {
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(inputs(), async ({ cycle, width, groupBy, pageSize, filters }) => {
        const c = cycles[cycle];
        if (!c) throw new Error("no cycle");
        const f = { ...NO_FILTERS, ...filters } as UsageFilters;
        const summary = await get(`/v1/usage/summary?${usageQuery(f, { billing_cycle_uuid: c.uuid })}`);
        // A month of hours is 672 or 744 buckets: within the limit.
        const report = usageQuery(f, {
          starting_at: c.start,
          ending_at: c.end,
          bucket_width: width,
          group_by: groupBy.join(","),
          page_size: pageSize,
        });
        const rows: Row[] = [];
        let totals: Row | undefined;
        let next: string | null = null;
        do {
          const page: Page = await get(`/v1/usage/report?${report}${next ? `&page=${next}` : ""}`);
          rows.push(...page.data);
          totals = page.totals;
          expect(page.data.length).toBeLessThanOrEqual(pageSize);
          next = page.next_page;
        } while (next);
        const all = sumBy(rows, () => "").get("") ?? { events: 0, count: 0, cost: 0n };
        expect(all).toEqual(exact(summary.totals));
        expect(exact(totals as Row)).toEqual(exact(summary.totals));
        if (rows.length) nonEmpty += 1;
        // Rows lie in the period, bucket by bucket.
        for (const r of rows) {
          expect(String(r.starting_at) >= new Date(c.start).toISOString()).toBe(true);
          expect(String(r.ending_at) <= new Date(c.end).toISOString()).toBe(true);
        }
        if (groupBy.includes("workspace")) {
          const per = sumBy(rows, (r) => String(r.workspace_uuid));
          for (const w of summary.by_workspace)
            expect(per.get(String(w.workspace_uuid)), w.workspace_name).toEqual(exact(w));
        }
        if (groupBy.includes("eval_type")) {
          const per = sumBy(rows, (r) => String(r.eval_type));
          for (const e of summary.by_eval_type) expect(per.get(e.eval_type), e.eval_type).toEqual(exact(e));
        }
        if (groupBy.includes("operation")) {
          const per = sumBy(rows, (r) => String(r.operation));
          const dashboard = new Map<string, bigint>();
          for (const o of summary.by_operation)
            dashboard.set(o.operation, (dashboard.get(o.operation) ?? 0n) + parseUsd(o.cost));
          for (const [op, cost] of dashboard) expect(per.get(op)?.cost ?? 0n, op).toBe(cost);
        }
        if (groupBy.includes("api_key")) for (const r of rows) expect(KEYS).toContain(r.api_key_id);
        // The CSV of the same report: every row, the same money.
        const csv = await fx.call("admin", "GET", `/v1/usage/report?${report}`, undefined, {
          accept: "text/csv",
        });
        expect(csv.statusCode, csv.body.slice(0, 300)).toBe(200);
        const lines = Papa.parse<string[]>(csv.body.trim()).data;
        const header = lines[0] ?? [];
        const cost = header.indexOf("Cost");
        expect(lines.length - 1).toBe(rows.length);
        expect(usdMicros(lines.slice(1).map((l) => l[cost] ?? ""))).toBe(parseUsd(summary.totals.cost));
      }),
      { seed: 20261124, numRuns: 30, endOnFailure: true },
    );
    expect(nonEmpty).toBeGreaterThan(5);
  });
});
