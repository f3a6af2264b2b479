import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiService } from "../../server/api/service";
import { billingCycles } from "../../server/db/schema";
import { importUsageFile } from "../../server/metering/ingestion/import";
import { loadConfig } from "../../server/platform/config";
import { type Database, openDatabase } from "../../server/platform/database";
import { accessToken, backends, PASSWORD, startProduct, type TestProduct } from "./harness";
import { addCycle, sendAsOperator, setSamplePrices } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

// The Billing & Usage page's data (summary, series, records total, the cycles' costs): the same answers from either
// rollup and from raw events, weeks from Sunday and cycles cut at midnight UTC; and a read after
// any usage write (ingestion, adjustment, import) shows it, in this API process and in another one
// on the same database, whatever either has cached.

type Bucket = { date: string; events: number; total_count: number; total_price: string };

describe.each(backends())("usage page data on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  let cycle = "";
  let bearer: Record<string, string> = {};
  const dir = mkdtempSync(join(tmpdir(), "usage-page-data-"));

  const ev = (id: string, at: string, over: Record<string, unknown> = {}) => ({
    event_id: id,
    occurred_at: at,
    name: `page-${id}`,
    operation: "generation",
    eval_type: "accuracy",
    modality: "text",
    quantity: 2,
    ...over,
  });

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    await setSamplePrices(p.database.db);
    bearer = { authorization: `Bearer ${await accessToken(p, "admin@acme.test")}` };
    // Sent before the cycles exist (no cycle: any date is taken). The March cycle starts on a
    // Wednesday, so its first week bucket (from Sunday 1 March) starts before the cycle.
    await sendAsOperator(p, fx.acmeId, [
      ev("before", "2026-03-03T23:59:59.999Z"),
      ev("first-day", "2026-03-04T00:00:00.000Z"),
      ev("saturday", "2026-03-07T23:59:59.000Z", { eval_type: "hallucination" }),
      ev("sunday", "2026-03-08T00:00:00.000Z", { operation: "scoring" }),
      ev("last-day", "2026-03-31T23:59:59.999Z", { eval_type: "safety" }),
      ev("after", "2026-04-01T00:00:00.000Z"),
    ]);
    await addCycle(p, fx.acmeId, "2026-02-01", "2026-03-04");
    cycle = await addCycle(p, fx.acmeId, "2026-03-04", "2026-04-01");
    await addCycle(p, fx.acmeId, "2026-04-01", null);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await p?.dispose();
  });

  const get = async (app: FastifyInstance, url: string) => {
    const res = await app.inject({ method: "GET", url, headers: bearer });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json();
  };
  const series = async (query: string, grouping: string) =>
    (await get(p.api.app, `/v1/usage/series?billing_cycle_uuid=${cycle}&grouping=${grouping}${query}`))
      .buckets as Bucket[];

  it("buckets weeks from Sunday and cuts the cycle at midnight UTC, alike from either rollup and from raw events", async () => {
    // No filter reads the coarse rollup, a modality filter usage_daily, a search the raw events;
    // every event here is text and named page-…, so all three keep the same four events.
    for (const query of ["", "&modality=text", "&search=page-"]) {
      const weekly = await series(query, "weekly");
      expect(
        weekly.map((b) => [b.date, b.events]),
        query,
      ).toEqual([
        ["2026-03-01", 2], // Wednesday 4th (first day) and Saturday 7th, 23:59:59
        ["2026-03-08", 1], // Sunday 8th, 00:00
        ["2026-03-15", 0],
        ["2026-03-22", 0],
        ["2026-03-29", 1], // Tuesday 31st, 23:59:59.999 (last day)
      ]);
      const monthly = await series(query, "monthly");
      expect(monthly.map((b) => [b.date, b.events, b.total_count])).toEqual([["2026-03-01", 4, 8]]);
      const daily = await series(query, "daily");
      expect(daily).toHaveLength(28);
      expect(daily.filter((b) => b.events > 0).map((b) => b.date)).toEqual([
        "2026-03-04",
        "2026-03-07",
        "2026-03-08",
        "2026-03-31",
      ]);
      const summary = await get(p.api.app, `/v1/usage/summary?billing_cycle_uuid=${cycle}${query}`);
      expect(summary.totals).toMatchObject({ events: 4, count: 8 });
      // accuracy and hallucination count as one group.
      expect(
        summary.by_eval_type.map((t: { eval_type: string; events: number }) => [t.eval_type, t.events]),
      ).toEqual([
        ["accuracy", 3],
        ["safety", 1],
      ]);
      const records = await get(p.api.app, `/v1/usage/records?billing_cycle_uuid=${cycle}${query}`);
      expect(records.total).toBe(4);
    }
    // The neighbouring cycles hold the events a millisecond either side.
    const feb = (await get(p.api.app, "/v1/accounts/organization/billingcycles")) as {
      billing_cycle_uuid: string;
      billing_cycle_start_date: string;
    }[];
    for (const c of feb.filter((x) => x.billing_cycle_uuid !== cycle)) {
      const s = await get(p.api.app, `/v1/usage/summary?billing_cycle_uuid=${c.billing_cycle_uuid}`);
      expect(s.totals.events, c.billing_cycle_start_date).toBe(1);
    }
  });

  it("shows every usage write at the next read, in this API process and in another one on the same database", async () => {
    // A second API service with a cache of its own; on PostgreSQL through a pool of its own, as
    // another process would be.
    let database: Database | null = null;
    const url = process.env.DATABASE_URL;
    if (backend.name === "postgres" && url) {
      const target = new URL(url);
      target.pathname = p.database.describe.slice(p.database.describe.lastIndexOf("/"));
      database = await openDatabase({ kind: "postgres", url: target.toString() });
    }
    const config = loadConfig({ DEMO_PASSWORD: PASSWORD, CONSOLE_DIR: "./tests/server/fixtures/console" });
    const other = await createApiService(
      config,
      database ?? p.database,
      p.identity.gateway,
      pino({ level: "silent" }),
    );
    try {
      const apps = [p.api.app, other.app];
      const page = (app: FastifyInstance) =>
        Promise.all([
          get(app, `/v1/usage/summary?billing_cycle_uuid=${cycle}`),
          get(app, `/v1/usage/series?billing_cycle_uuid=${cycle}&grouping=weekly`),
          get(app, `/v1/usage/records?billing_cycle_uuid=${cycle}`),
          get(app, "/v1/accounts/organization/billingcycles"),
        ]);
      const expectPage = async (events: number, cost: string, adjustments: string) => {
        for (const app of apps)
          for (let i = 0; i < 2; i++) {
            // Twice: the second read is served from the cache, and must agree.
            const [summary, weekly, records, cycles] = await page(app);
            expect(summary.totals.events).toBe(events);
            expect(summary.totals.cost).toBe(cost);
            expect(summary.adjustments.cost).toBe(adjustments);
            expect(weekly.buckets.reduce((s: number, b: Bucket) => s + b.events, 0)).toBe(events);
            expect(records.total).toBe(events);
            // The cycles list's costs (kept per usage version too) agree with the page.
            const march = cycles.find((c: { billing_cycle_uuid: string }) => c.billing_cycle_uuid === cycle);
            expect(Number(march.total_cost)).toBeCloseTo(Number(cost), 9);
          }
      };
      // Quantity 2 each: two accuracy generations at $0.01, a scoring at $0.002, a safety
      // generation at $0.0125.
      await expectPage(4, "0.069", "0.00");

      // Ingestion (the March cycle is closed: an operator backfill).
      const backfill = await p.api.app.inject({
        method: "POST",
        url: `/v1/usage/events?organization_uuid=${fx.acmeId}&backfill=true`,
        headers: { authorization: `Bearer ${p.identity.ctx.backendApiKey}` },
        payload: { events: [ev("late", "2026-03-10T12:00:00Z")] },
      });
      expect(backfill.json(), backfill.body).toMatchObject({ accepted: 1 });
      await expectPage(5, "0.089", "0.00");

      // An operator's adjustment (a credit).
      await sendAsOperator(p, fx.acmeId, [
        ev("credit", "2026-04-02T00:00:00Z", { cost: "-0.50", notes: "goodwill credit" }),
      ]);
      const current = (app: FastifyInstance) => get(app, "/v1/usage/summary");
      for (const app of apps) expect((await current(app)).adjustments.cost).toBe("-0.50");
      await importUsageFile(
        p.database.db,
        fx.acmeId,
        (() => {
          const file = join(dir, "usage.ndjson");
          writeFileSync(
            file,
            `${JSON.stringify(ev("imported", "2026-03-20T08:00:00Z", { quantity: 10 }))}\n`,
          );
          return file;
        })(),
        { backfill: true },
      );
      // The import: 10 more generations at $0.01.
      await expectPage(6, "0.189", "0.00");
      for (const app of apps) {
        const s = await current(app);
        expect(s.totals.events).toBe(2); // April: "after" and the credit
        expect(s.credits.cost).toBe("-0.50");
      }
    } finally {
      await other.app.close();
      await database?.close();
    }
  });

  it("answers an organization without any cycle with its current one, storing nothing", async () => {
    const before = await p.database.db.$count(billingCycles);
    const globex = await fx.call("other", "GET", "/v1/usage/summary");
    expect(globex.statusCode, globex.body).toBe(200);
    const cycles = await fx.call("other", "GET", "/v1/accounts/organization/billingcycles");
    expect(cycles.json()).toHaveLength(1);
    const [current] = cycles.json();
    expect(current.billing_cycle_end_date).toBeNull();
    expect(current.billing_cycle_uuid).toBe(globex.json().billing_cycle_uuid);
    // Asked for by that uuid, the same cycle; still nothing stored.
    const again = await fx.call(
      "other",
      "GET",
      `/v1/usage/series?billing_cycle_uuid=${current.billing_cycle_uuid}`,
    );
    expect(again.statusCode, again.body).toBe(200);
    expect(await p.database.db.$count(billingCycles)).toBe(before);
  });
});
