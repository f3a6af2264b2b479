import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUsdExact, parseUsd } from "../../contract/money";
import type { UsageReportPage } from "../../contract/usage-report";
import type { UsageRecord, UsageSummary } from "../../contract/usage-schemas";
import { listPriceRules, setPriceRule } from "../../server/metering/pricing/prices";
import { backends, startProduct, type TestProduct } from "./harness";
import { addCycle, PAST, sendAsOperator } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

// Provenance: every priced event names the price rule version that priced it. The records, the
// export and the report show the rule's uuid, its version and its unit price, also after a price
// change in the middle of a cycle (old events keep version 1, new ones get version 2), and the
// usage reads filter by rule.

const OP = "provenance-op";
const SHARED_OP = "provenance-shared";

describe.each(backends())("price rule provenance on $name", (backend) => {
  let p: TestProduct;
  let fx: Fixture;
  let cycle = "";
  let v1 = "";
  let v2 = "";
  let shared = "";
  let globexRule = "";

  const event = (id: string, day: number, quantity: number, operation = OP) => ({
    event_id: id,
    occurred_at: `2026-02-${String(day).padStart(2, "0")}T12:00:00Z`,
    operation,
    eval_type: "safety",
    quantity,
  });

  beforeAll(async () => {
    p = await startProduct(backend);
    fx = await setUpWorkspaces(p);
    const db = p.database.db;
    v1 = (
      await setPriceRule(db, {
        organizationUuid: fx.acmeId,
        operation: OP,
        unitPrice: "0.01",
        validFrom: PAST,
      })
    ).priceRuleUuid;
    shared = (await setPriceRule(db, { operation: SHARED_OP, unitPrice: "0.5", validFrom: PAST }))
      .priceRuleUuid;
    globexRule = (
      await setPriceRule(db, {
        organizationUuid: fx.globexId,
        operation: OP,
        unitPrice: "0.03",
        validFrom: PAST,
      })
    ).priceRuleUuid;
    await sendAsOperator(p, fx.acmeId, [event("a1", 2, 3), event("a2", 5, 1), event("s1", 6, 2, SHARED_OP)]);
    await sendAsOperator(p, fx.globexId, [event("g1", 3, 4), event("g2", 4, 1, SHARED_OP)]);
    // The price changes in the middle of the cycle: a new version from Feb 15 on.
    v2 = (
      await setPriceRule(db, {
        organizationUuid: fx.acmeId,
        operation: OP,
        unitPrice: "0.02",
        validFrom: new Date("2026-02-15T00:00:00Z"),
      })
    ).priceRuleUuid;
    // Sent after the change: one dated before it (priced by version 1), two after it.
    await sendAsOperator(p, fx.acmeId, [event("a3", 10, 2), event("b1", 16, 5), event("b2", 20, 1)]);
    cycle = await addCycle(p, fx.acmeId, "2026-02-01", null);
    await addCycle(p, fx.globexId, "2026-02-01", null);
  });
  afterAll(async () => p?.dispose());

  const get = async <T>(who: "admin" | "other", url: string): Promise<T> => {
    const res = await fx.call(who, "GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json() as T;
  };
  const records = async (query = "", who: "admin" | "other" = "admin") =>
    (await get<{ records: UsageRecord[]; total: number }>(who, `/v1/usage/records?page_size=100${query}`))
      .records;

  it("numbers a rule's versions: 1 for the first, 2 after a price change; the built-in list is version 1", async () => {
    const rules = await listPriceRules(p.database.db, fx.acmeId);
    const byUuid = new Map(rules.map((r) => [r.priceRuleUuid, r]));
    expect(byUuid.get(v1)).toMatchObject({ version: 1, unitPriceMicros: 10_000n });
    expect(byUuid.get(v2)).toMatchObject({ version: 2, unitPriceMicros: 20_000n });
    expect(byUuid.get(v1)?.validTo?.toISOString()).toBe("2026-02-15T00:00:00.000Z");
    const globals = await listPriceRules(p.database.db, null);
    expect(globals.filter((r) => r.builtIn).every((r) => r.version === 1)).toBe(true);
    // Another lineage (another organization, the same dimensions) starts at 1 of its own.
    expect(
      (await listPriceRules(p.database.db, fx.globexId)).find((r) => r.priceRuleUuid === globexRule),
    ).toMatchObject({ version: 1 });
  });

  it("migration 0022 numbers existing rules as setPriceRule would: by lineage, in the order they were set", async () => {
    const db = p.database.db;
    const migration = readFileSync("server/db/migrations/0022_price_rule_version.sql", "utf8");
    const backfill = migration.split("--> statement-breakpoint")[1] ?? "";
    expect(backfill).toMatch(/UPDATE "price_rules"/);
    const versions = async () => new Map((await listPriceRules(db)).map((r) => [r.priceRuleUuid, r.version]));
    const before = await versions();
    // As the rows stood before the column: every rule at the default, 1.
    await db.execute(sql`update price_rules set version = 1`);
    await db.execute(sql.raw(backfill));
    expect(await versions()).toEqual(before);
    expect([before.get(v1), before.get(v2), before.get(shared), before.get(globexRule)]).toEqual([
      1, 2, 1, 1,
    ]);
  });

  it("records carry the uuid, version and unit price of the rule that priced each event, across the change", async () => {
    const rows = (await records(`&billing_cycle_uuid=${cycle}&operation=${OP}&sort=date`)).map((r) => [
      r.date.slice(0, 10),
      r.quantity,
      r.price_rule_uuid,
      r.price_rule_version,
      r.unit_price,
      r.cost,
    ]);
    expect(rows).toEqual([
      ["2026-02-02", 3, v1, 1, "0.01", "0.03"],
      ["2026-02-05", 1, v1, 1, "0.01", "0.01"],
      ["2026-02-10", 2, v1, 1, "0.01", "0.02"],
      ["2026-02-16", 5, v2, 2, "0.02", "0.10"],
      ["2026-02-20", 1, v2, 2, "0.02", "0.02"],
    ]);
    // quantity × unit price = cost on every record
    for (const r of await records(`&billing_cycle_uuid=${cycle}`))
      if (r.price_rule_uuid) expect(BigInt(r.quantity) * parseUsd(r.unit_price)).toBe(parseUsd(r.cost));
  });

  it("the CSV export with pricing details carries the rule's uuid and version, the plain one not", async () => {
    const url = `/v1/usage/export.csv?billing_cycle_uuid=${cycle}&operation=${OP}`;
    const plain = await fx.call("admin", "GET", url);
    expect(plain.statusCode, plain.body).toBe(200);
    expect(Papa.parse<Record<string, string>>(plain.body.trim(), { header: true }).meta.fields).not.toContain(
      "Price Rule ID",
    );
    const res = await fx.call("admin", "GET", `${url}&details=pricing`);
    expect(res.statusCode, res.body).toBe(200);
    const parsed = Papa.parse<Record<string, string>>(res.body.trim(), { header: true });
    const rows = parsed.data
      .map((r) => [r.Date?.slice(0, 10), r["Unit Price"], r["Price Rule ID"], r["Price Rule Version"]])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual([
      ["2026-02-02", "0.01", v1, "1"],
      ["2026-02-05", "0.01", v1, "1"],
      ["2026-02-10", "0.01", v1, "1"],
      ["2026-02-16", "0.02", v2, "2"],
      ["2026-02-20", "0.02", v2, "2"],
    ]);
  });

  it("the report groups by price rule: uuid, version and unit price per row, in JSON and CSV", async () => {
    const base = "/v1/usage/report?starting_at=2026-02-01&ending_at=2026-03-01&bucket_width=1mo";
    const page = await get<UsageReportPage>("admin", `${base}&group_by=price_rule,operation`);
    const rows = page.data
      .filter((r) => r.operation === OP)
      .map((r) => [r.price_rule_uuid, r.price_rule_version, r.unit_price, r.events, r.count, r.cost])
      .sort((a, b) => Number(a[1]) - Number(b[1]));
    expect(rows).toEqual([
      [v1, 1, "0.01", 3, 6, "0.06"],
      [v2, 2, "0.02", 2, 6, "0.12"],
    ]);
    const sharedRow = page.data.find((r) => r.operation === SHARED_OP);
    expect(sharedRow).toMatchObject({
      price_rule_uuid: shared,
      price_rule_version: 1,
      unit_price: "0.50",
      cost: "1.00",
    });
    const csv = await fx.call("admin", "GET", `${base}&group_by=price_rule&format=csv`);
    expect(csv.statusCode, csv.body).toBe(200);
    const parsed = Papa.parse<Record<string, string>>(csv.body.trim(), { header: true });
    expect(parsed.meta.fields).toEqual([
      "Starting At",
      "Ending At",
      "Price Rule ID",
      "Price Rule Version",
      "Unit Price",
      "Events",
      "Count",
      "Cost",
    ]);
    const v2Row = parsed.data.find((r) => r["Price Rule ID"] === v2);
    expect(v2Row).toMatchObject({
      "Price Rule Version": "2",
      "Unit Price": "0.02",
      Events: "2",
      Cost: "0.12",
    });
  });

  it("filters by rule: exactly that rule's events, whose costs the summary, export and report sum", async () => {
    for (const [rule, dates, cost] of [
      [() => v1, ["2026-02-02", "2026-02-05", "2026-02-10"], "0.06"],
      [() => v2, ["2026-02-16", "2026-02-20"], "0.12"],
      [() => shared, ["2026-02-06"], "1.00"],
    ] as const) {
      const q = `&billing_cycle_uuid=${cycle}&price_rule_uuid=${rule()}`;
      const rows = await records(`${q}&sort=date`);
      expect(rows.map((r) => r.date.slice(0, 10))).toEqual(dates);
      expect(rows.every((r) => r.price_rule_uuid === rule())).toBe(true);
      const sum = rows.reduce((s, r) => s + parseUsd(r.cost), 0n);
      expect(formatUsdExact(sum)).toBe(formatUsdExact(parseUsd(cost)));
      const summary = await get<UsageSummary>("admin", `/v1/usage/summary?${q.slice(1)}`);
      expect([summary.totals.events, parseUsd(summary.totals.cost)]).toEqual([dates.length, parseUsd(cost)]);
      const csv = await fx.call("admin", "GET", `/v1/usage/export.csv?${q.slice(1)}`);
      expect(csv.body.trimEnd().split("\r\n")).toHaveLength(dates.length + 1);
      const report = await get<UsageReportPage>(
        "admin",
        `/v1/usage/report?starting_at=2026-02-01&ending_at=2026-03-01&bucket_width=1d&price_rule_uuid=${rule()}`,
      );
      expect([report.totals.events, parseUsd(report.totals.cost)]).toEqual([dates.length, parseUsd(cost)]);
    }
  });

  it("isolates tenants: another tenant's rule matches nothing, a global rule only the reader's own events", async () => {
    expect(await records(`&billing_cycle_uuid=${cycle}&price_rule_uuid=${globexRule}`)).toEqual([]);
    expect(await records(`&price_rule_uuid=${v1}`, "other")).toEqual([]);
    const globexShared = await records(`&price_rule_uuid=${shared}`, "other");
    expect(globexShared.map((r) => [r.date.slice(0, 10), r.price_rule_uuid, r.price_rule_version])).toEqual([
      ["2026-02-04", shared, 1],
    ]);
    const own = await records(`&price_rule_uuid=${globexRule}`, "other");
    expect(own.map((r) => [r.quantity, r.unit_price, r.price_rule_version])).toEqual([[4, "0.03", 1]]);
  });

  it("refuses a price_rule_uuid that is not a UUID with 400", async () => {
    for (const url of ["/v1/usage/records", "/v1/usage/summary", "/v1/usage/export.csv"]) {
      const res = await fx.call("admin", "GET", `${url}?price_rule_uuid=not-a-uuid`);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(res.body).toContain("price_rule_uuid must be a UUID.");
    }
  });
});
