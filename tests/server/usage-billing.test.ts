import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingCycles, usageEvents } from "../../server/db/schema";
import { setOperator } from "../../server/identity/impersonation/operators";
import {
  BillingError,
  closeCycle,
  openCycle,
  recordPayment,
  resolveOrganization,
  setGroup,
} from "../../server/metering/billing/billing";
import { groupTotals, listCycles } from "../../server/metering/billing/cycles";
import { ImportError, importUsageFile } from "../../server/metering/ingestion/import";
import { createIngestKey } from "../../server/metering/ingestion/ingest-keys";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { DEMO_ORG, seedDemoUsage } from "../../server/seed";
import { accessToken, backends, startProduct, type TestProduct } from "./harness";
import { type IngestResult, PAST, USAGE_EVENTS_URL } from "./usage-setup";
import { type Fixture, setUpWorkspaces } from "./workspaces-fixture";

describe.each(backends())("billing operations, NDJSON and backfill on $name", (backend) => {
  let p: TestProduct;
  let f: Fixture;
  let operator = "";
  let orgKey: Record<string, string> = {};
  const dir = mkdtempSync(join(tmpdir(), "usage-import-"));

  beforeAll(async () => {
    p = await startProduct(backend);
    f = await setUpWorkspaces(p);
    await setPriceRule(p.database.db, { unitPrice: "0.01", validFrom: PAST });
    await setOperator(p.database.db, "newcomer@acme.test", true);
    operator = await accessToken(p, "newcomer@acme.test");
    // The eval service's ingestion key for Acme.
    const key = await createIngestKey(p.database.db, { name: "evals", organizationUuid: f.acmeId });
    orgKey = { "x-api-key": key.token };
    await f.call("other", "POST", "/v1/workspaces/", { name: "Globex Lab", organization_uuid: f.globexId });
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await p?.dispose();
  });

  const post = (payload: string | object, headers: Record<string, string>, query = "") =>
    p.api.app.inject({ method: "POST", url: `${USAGE_EVENTS_URL}${query}`, headers, payload });
  const ev = (id: string, at: string, over: Record<string, unknown> = {}) => ({
    event_id: id,
    occurred_at: at,
    operation: "scoring",
    eval_type: "safety",
    ...over,
  });
  const cost = async (orgId: string, prefix: string) => {
    const [r] = await p.database.db
      .select({ n: sql<string>`count(*)::text`, c: sql<string>`coalesce(sum(cost_micros), 0)::text` })
      .from(usageEvents)
      .where(and(eq(usageEvents.organizationUuid, orgId), sql`event_id like ${`${prefix}%`}`));
    return r ?? { n: "0", c: "0" };
  };

  it("takes NDJSON: a malformed line is one rejected event at its index, the rest is stored", async () => {
    const lines = [
      JSON.stringify(ev("nd-1", "2026-01-10T10:00:00Z")),
      "{not json",
      "",
      JSON.stringify([1, 2]),
      JSON.stringify(ev("nd-2", "2026-01-10T11:00:00Z", { quantity: 3 })),
      JSON.stringify(ev("nd-1", "2026-01-10T10:00:00Z")),
    ].join("\n");
    const res = await post(lines, { ...orgKey, "content-type": "application/x-ndjson" });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as IngestResult;
    expect(body.accepted).toBe(2);
    expect(body.duplicates).toBe(1);
    expect(body.rejected).toEqual([
      { index: 1, event_id: null, reason: expect.stringMatching(/^line 2: not valid JSON/) },
      { index: 2, event_id: null, reason: "line 4: each line must be one JSON object" },
    ]);
    expect(await cost(f.acmeId, "nd-")).toEqual({ n: "2", c: "40000" });
    // Same limits as JSON: more than 10,000 lines is a 400 for the whole call, nothing stored.
    const big = Array.from({ length: 10_001 }, (_, i) =>
      JSON.stringify(ev(`nd-big-${i}`, "2026-01-10T10:00:00Z")),
    );
    const tooMany = await post(big.join("\n"), { ...orgKey, "content-type": "application/x-ndjson" });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.code).toBe("invalid_request");
    expect(await cost(f.acmeId, "nd-big-")).toEqual({ n: "0", c: "0" });
  });

  it("bills events of a closed cycle (at midnight UTC) as late usage in the open one; an operator backfill bills them there", async () => {
    const db = p.database.db;
    const org = f.acmeId;
    await openCycle(db, org, "2026-01-01");
    const { closed, opened } = await closeCycle(db, org, { endDate: "2026-02-01" });
    expect(opened?.startDate).toBe("2026-02-01");
    const sumOf = (t: Awaited<ReturnType<typeof groupTotals>>) =>
      t.groups.reduce((s, g) => s + g.totalMicros, t.unattributedMicros);
    const closedBefore = sumOf(await groupTotals(db, closed));
    const openBefore = opened ? sumOf(await groupTotals(db, opened)) : 0n;
    const events = [
      ev("cb-last", "2026-01-31T23:59:59.999Z"),
      ev("cb-next", "2026-02-01T00:00:00.000Z"),
      ev("cb-tz", "2026-02-01T00:30:00+01:00"), // 23:30 UTC on Jan 31: closed
    ];
    const res = await post({ events }, orgKey);
    expect(res.json()).toEqual({ accepted: 3, awaiting_pricing: 0, late: 2, duplicates: 0, rejected: [] });
    // The closed cycle never changes; the open one bills all three.
    expect(sumOf(await groupTotals(db, closed))).toBe(closedBefore);
    if (opened) expect(sumOf(await groupTotals(db, opened)) - openBefore).toBe(30_000n);
    const records = await f.call(
      "admin",
      "GET",
      `/v1/usage/records?billing_cycle_uuid=${opened?.billingCycleUuid}&page_size=100`,
    );
    expect(records.statusCode, records.body).toBe(200);
    const late = (records.json().records as { late_from: unknown; cost: string }[]).filter(
      (r) => r.late_from,
    );
    const times = (r: { late_from: unknown }) => (r.late_from as { occurred_at: string }).occurred_at;
    expect(late.sort((a, b) => (times(a) < times(b) ? -1 : 1)).map((r) => r.late_from)).toEqual([
      { period_start: "2026-01-01", period_end: "2026-02-01", occurred_at: "2026-01-31T23:30:00.000Z" },
      { period_start: "2026-01-01", period_end: "2026-02-01", occurred_at: "2026-01-31T23:59:59.999Z" },
    ]);

    const backfill = [ev("bf-last", "2026-01-31T23:59:59.999Z"), ev("cb-next", "2026-02-01T00:00:00.000Z")];
    // Backfill is for operators only: an ingestion key gets a clear 403, nothing written.
    const denied = await post({ events: backfill }, orgKey, "?backfill=true");
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.message).toBe(
      "Only provider operators (with their own bearer token) can backfill closed billing cycles.",
    );
    expect((await post({ events: backfill }, f.headers("admin"), "?backfill=true")).statusCode).toBe(403);
    const other = await post({ events: backfill }, orgKey, `?organization_uuid=${f.globexId}`);
    expect(other.statusCode).toBe(403);

    const auth = { authorization: `Bearer ${operator}` };
    const ok = await post({ events: backfill }, auth, `?backfill=true&organization_uuid=${org}`);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ accepted: 1, awaiting_pricing: 0, late: 0, duplicates: 1, rejected: [] });
    expect(sumOf(await groupTotals(db, closed)) - closedBefore).toBe(10_000n);
    const missing = await post({ events: backfill }, auth, "?backfill=true&organization_uuid=no-such-org");
    expect(missing.statusCode).toBe(404);
    const bad = await post({ events: backfill }, auth, "?backfill=yes");
    expect(bad.statusCode).toBe(400);
  });

  it("opens and closes cycles, records payments and sets groups, refusing bad requests without writing", async () => {
    const db = p.database.db;
    const org = await resolveOrganization(db, "Globex");
    expect(org.id).toBe(f.globexId);
    expect((await resolveOrganization(db, f.globexId)).name).toBe("Globex");
    await expect(resolveOrganization(db, "Nope Inc")).rejects.toThrow(BillingError);

    await openCycle(db, org.id, "2026-03-01");
    await expect(openCycle(db, org.id, "2026-04-01")).rejects.toThrow(
      "A cycle is already open (since 2026-03-01)",
    );
    await expect(closeCycle(db, org.id, { endDate: "2026-03-01" })).rejects.toThrow(
      "The open cycle starts on 2026-03-01; its end date must be later (got 2026-03-01).",
    );
    const { closed } = await closeCycle(db, org.id, { endDate: "2026-04-01", openNext: false });
    await expect(openCycle(db, org.id, "2026-03-15")).rejects.toThrow("on or after 2026-04-01");
    await expect(closeCycle(db, org.id, { endDate: "2026-05-01" })).rejects.toThrow("no open cycle");
    await openCycle(db, org.id, "2026-04-01");
    expect((await listCycles(db, org.id)).map((c) => [c.startDate, c.endDate])).toEqual([
      ["2026-03-01", "2026-04-01"],
      ["2026-04-01", null],
    ]);

    const paid = await recordPayment(db, org.id, {
      amountMicros: 1_500_000n,
      billingCycleUuid: closed.billingCycleUuid,
    });
    expect(paid.cycle.startDate).toBe("2026-03-01");
    await recordPayment(db, org.id, { amountMicros: 250_000n, billingCycleUuid: closed.billingCycleUuid });
    expect((await groupTotals(db, closed)).paidMicros).toBe(1_750_000n);
    await expect(
      recordPayment(db, org.id, {
        amountMicros: 1n,
        billingCycleUuid: (await listCycles(db, f.acmeId))[0]?.billingCycleUuid as string,
      }),
    ).rejects.toThrow("has no billing cycle");

    const g = await setGroup(db, org.id, {
      name: "Labs",
      prepaidMicros: 10_000_000n,
      workspaces: ["Globex Lab"],
    });
    expect(g.workspaces).toEqual(["Globex Lab"]);
    const again = await setGroup(db, org.id, { name: "Labs", prepaidMicros: 5_000_000n });
    expect(again.group.prepaidMicros).toBe(5_000_000n);
    expect(again.workspaces).toEqual(["Globex Lab"]);
    await expect(setGroup(db, org.id, { name: "Labs", workspaces: ["Safety Research"] })).rejects.toThrow(
      'No live workspace "Safety Research" in the organization.',
    );
    expect((await setGroup(db, org.id, { name: "Labs" })).workspaces).toEqual(["Globex Lab"]);
  });

  it("imports CSV and NDJSON files in batches, idempotently, with line numbers for rejections", async () => {
    const db = p.database.db;
    const org = f.globexId;
    const csv = join(dir, "usage.csv");
    writeFileSync(
      csv,
      [
        "\uFEFFevent_id,occurred_at,operation,eval_type,quantity,is_jailbreak,name,notes,cost",
        "im-1,2026-04-02T10:00:00Z,scoring,safety,2,true,,,",
        'im-2,2026-04-02T11:00:00Z,generation,accuracy,,no,"Eval, ""quoted""\nacross lines",,',
        "im-3,2026-04-02T12:00:00Z,scoring,safety,,maybe,,,",
        "im-4,2026-04-02T13:00:00Z,scoring,safety,,,,Credit for an outage,-5.00",
        "im-5,2026-04-02T14:00:00Z,scoring",
      ].join("\r\n"),
    );
    const progress: number[] = [];
    const first = await importUsageFile(db, org, csv, {
      batchSize: 2,
      onProgress: (x) => progress.push(x.events),
    });
    expect(first).toMatchObject({ events: 5, accepted: 3, duplicates: 0, rejected: 2 });
    expect(progress).toEqual([2, 4, 5]);
    expect(first.rejections).toEqual([
      // im-2's quoted name spans lines 3 and 4.
      { line: 5, event_id: "im-3", reason: "is_jailbreak must be true or false" },
      { line: 7, event_id: null, reason: "line 7: 3 fields where the header has 9" },
    ]);
    const [named] = await db
      .select({ name: usageEvents.name, jb: usageEvents.isJailbreak })
      .from(usageEvents)
      .where(and(eq(usageEvents.organizationUuid, org), eq(usageEvents.eventId, "im-2")));
    expect(named).toEqual({ name: 'Eval, "quoted"\nacross lines', jb: false });
    expect(await cost(org, "im-")).toEqual({ n: "3", c: String(20_000n + 10_000n - 5_000_000n) });
    // The operator's import may carry adjustments; each one is audited.
    const audit = await db.execute(
      sql`select source, target_id, after from audit_log where action = 'usage.adjustment_recorded' and organization_uuid = ${org}`,
    );
    expect((audit as unknown as { rows: unknown[] }).rows).toEqual([
      {
        source: "cli",
        target_id: "im-4",
        after: { cost: "-5.00", notes: "Credit for an outage", occurred_at: "2026-04-02T13:00:00.000Z" },
      },
    ]);
    const again = await importUsageFile(db, org, csv);
    expect(again).toMatchObject({ accepted: 0, duplicates: 3, rejected: 2 });

    const nd = join(dir, "usage.ndjson");
    writeFileSync(
      nd,
      `${JSON.stringify(ev("im-6", "2026-04-03T10:00:00Z"))}\n\n{oops}\n${JSON.stringify(ev("im-1", "2026-04-02T10:00:00Z"))}\n`,
    );
    const n = await importUsageFile(db, org, nd);
    expect(n).toMatchObject({ events: 3, accepted: 1, duplicates: 1, rejected: 1 });
    expect(n.rejections[0]).toMatchObject({
      line: 3,
      reason: expect.stringMatching(/^line 3: not valid JSON/),
    });

    // A closed cycle's usage is late usage, billed in the open cycle; with --backfill it is billed
    // in the closed one. A bad header or file is refused before anything is written.
    const old = join(dir, "old.ndjson");
    writeFileSync(old, JSON.stringify(ev("im-old", "2026-03-10T10:00:00Z")));
    expect(await importUsageFile(db, org, old)).toMatchObject({ accepted: 1, rejected: 0 });
    const back = join(dir, "back.ndjson");
    writeFileSync(back, JSON.stringify(ev("im-back", "2026-03-10T10:00:00Z")));
    expect((await importUsageFile(db, org, back, { backfill: true })).accepted).toBe(1);
    const days = await db.execute(
      sql`select event_id, late_period_start::text as late from usage_events
           where organization_uuid = ${org} and event_id in ('im-old', 'im-back') order by event_id`,
    );
    expect((days as unknown as { rows: unknown[] }).rows).toEqual([
      { event_id: "im-back", late: null },
      { event_id: "im-old", late: expect.stringMatching(/^2026-03-01$/) },
    ]);
    const badHeader = join(dir, "bad.csv");
    writeFileSync(badHeader, "event_id,when\nx,y\n");
    await expect(importUsageFile(db, org, badHeader)).rejects.toThrow("unknown column(s) when");
    await expect(importUsageFile(db, org, join(dir, "missing.csv"))).rejects.toThrow(ImportError);
    await expect(importUsageFile(db, org, join(dir, "usage.txt"))).rejects.toThrow(".csv, .ndjson or .jsonl");
  });

  it("seeds the demo's billing data once: three cycles, prices, groups, payments and generated events", async () => {
    const db = p.database.db;
    const acme = await p.identity.admin.findOrganizationBySlug(DEMO_ORG.slug);
    if (!acme) throw new Error("no demo organization");
    // The demo organization here already has cycles from the tests above; start from none.
    await db.execute(sql`delete from payments where organization_uuid = ${acme.id}`);
    await db.delete(billingCycles).where(eq(billingCycles.organizationUuid, acme.id));
    const deps = { db, identity: p.identity.admin, workspaces: p.api.workspaces };
    const now = new Date("2026-05-14T09:30:00Z");
    const first = await seedDemoUsage(deps, { events: 3000, now });
    expect(first).toMatchObject({ seeded: true, generated: 3000, accepted: 3000 });
    const cycles = await listCycles(db, acme.id);
    expect(cycles.map((c) => [c.startDate, c.endDate])).toEqual([
      ["2026-03-01", "2026-04-01"],
      ["2026-04-01", "2026-05-01"],
      ["2026-05-01", null],
    ]);
    const [c1, c2] = cycles;
    if (!c1 || !c2) throw new Error("cycles");
    const t1 = await groupTotals(db, c1);
    const total1 = t1.groups.reduce((s, g) => s + g.totalMicros, t1.unattributedMicros);
    expect(t1.paidMicros).toBe(total1);
    expect((await groupTotals(db, c2)).paidMicros).toBeGreaterThan(0n);
    expect(t1.groups.map((g) => g.groupName)).toEqual(["Red Team", "Research", "default"]);
    expect(t1.unattributedMicros).toBeGreaterThan(0n);
    expect((await cost(acme.id, "demo-2026-")).n).toBe("3000");

    const second = await seedDemoUsage(deps, { events: 3000, now });
    expect(second).toEqual({ seeded: false, reason: "the demo usage already exists" });
    expect((await cost(acme.id, "demo-2026-")).n).toBe("3000");
  });
});
