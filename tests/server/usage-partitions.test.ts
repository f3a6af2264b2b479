import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { eq, sql } from "drizzle-orm";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import * as schema from "../../server/db/schema";
import { billingCycles, workspaces } from "../../server/db/schema";
import { ingestUsage } from "../../server/metering/ingestion/ingest";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { archiveMonth, listMonths, restoreMonth } from "../../server/metering/shared/partitions";
import { parseEventsArgs, runEventsCommand } from "../../server/metering/shared/partitions-cli";
import type { Db } from "../../server/platform/database";
import { runCli } from "./cli-process";
import { backends, productPerSuite } from "./harness";
import { PAST } from "./usage-setup";

type Rows<T> = { rows: T[] };

describe.each(backends())("usage events by month on $name", (backend) => {
  const suite = productPerSuite(backend);
  const db = () => suite.p.database.db;
  const others: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of others) await close();
  });

  /**
   * A second handle on the same database, with caches of its own: what another API process sees.
   * (PGlite: a second drizzle instance on the same engine; PostgreSQL: a second pool.)
   */
  function otherProcess(): Db {
    const client = (db() as unknown as { $client: PGlite | pg.Pool }).$client;
    if (suite.p.database.kind === "pglite")
      return drizzlePglite(client as PGlite, { schema }) as unknown as Db;
    const pool = new pg.Pool({ connectionString: (client as pg.Pool).options.connectionString, max: 2 });
    others.push(() => pool.end());
    return drizzleNodePg(pool, { schema }) as unknown as Db;
  }

  const query = async <T>(text: string) => ((await db().execute(sql.raw(text))) as unknown as Rows<T>).rows;
  let seq = 0;
  const ev = (over: Record<string, unknown> = {}) => ({
    event_id: `pt-${++seq}`,
    occurred_at: "2026-03-01T10:00:00Z",
    operation: "scoring",
    eval_type: "safety",
    ...over,
  });
  const eventsOf = async (org: string) =>
    (
      await query<{ n: string; c: string | null }>(
        `select count(*)::text as n, sum(cost_micros)::text as c from usage_events where organization_uuid = '${org}'`,
      )
    )[0];
  const billedOf = async (org: string) =>
    (
      await query<{ n: string | null; c: string | null }>(
        `select sum(event_count)::text as n, sum(cost_micros_sum)::text as c from usage_daily where organization_uuid = '${org}'`,
      )
    )[0];

  it("stores an event id once, even when it comes again in another month", async () => {
    // From the earliest date usage can have: the months below go back to 2011.
    await setPriceRule(db(), {
      operation: "scoring",
      unitPrice: "0.002",
      validFrom: new Date("2000-01-01T00:00:00Z"),
    });
    const org = "org-two-months";
    const march = ev({ event_id: "same-id", occurred_at: "2026-03-10T00:00:00Z" });
    const april = ev({ event_id: "same-id", occurred_at: "2026-04-10T00:00:00Z" });
    expect(await ingestUsage(db(), org, [march, april])).toEqual({
      accepted: 1,
      awaiting_pricing: 0,
      late: 0,
      duplicates: 1,
      rejected: [],
    });
    expect(await ingestUsage(db(), org, [april])).toEqual({
      accepted: 0,
      awaiting_pricing: 0,
      late: 0,
      duplicates: 1,
      rejected: [],
    });
    expect(await ingestUsage(otherProcess(), org, [april, march])).toMatchObject({
      accepted: 0,
      duplicates: 2,
    });
    expect(await eventsOf(org)).toEqual({ n: "1", c: "2000" });
    expect(await billedOf(org)).toEqual({ n: "1", c: "2000" });
    const [stored] = await query<{ occurred_at: string }>(
      `select occurred_at::text from usage_events where organization_uuid = '${org}'`,
    );
    expect(stored?.occurred_at).toMatch(/^2026-03-10/);
  });

  it("creates a new month's partition on the first write, once, when processes race for it", async () => {
    const org = "org-new-month";
    const batches = [0, 1, 2, 3].map((b) =>
      Array.from({ length: 50 }, (_, i) =>
        ev({
          event_id: `nm-${b}-${i}`,
          occurred_at: `2011-05-${String(1 + (i % 28)).padStart(2, "0")}T12:00:00Z`,
        }),
      ),
    );
    const handles = [db(), otherProcess(), db(), otherProcess()];
    const results = await Promise.all(batches.map((b, i) => ingestUsage(handles[i] as Db, org, b)));
    expect(results.map((r) => r.accepted)).toEqual([50, 50, 50, 50]);
    const months = await listMonths(db());
    expect(months.filter((m) => m.month === "2011-05")).toMatchObject([
      { table: "usage_events_y2011m05", archived: false },
    ]);
    expect(await eventsOf(org)).toMatchObject({ n: "200" });
  });

  it("archives a month whose bills are closed: its events leave usage_events, the bill keeps them, and it comes back", async () => {
    const org = "org-archive";
    await db()
      .insert(billingCycles)
      .values({ organizationUuid: org, startDate: "2012-02-01", endDate: null });
    const feb = Array.from({ length: 30 }, (_, i) =>
      ev({ event_id: `ar-${i}`, occurred_at: `2012-02-${String(1 + (i % 28)).padStart(2, "0")}T08:00:00Z` }),
    );
    // Another process writes to the month too, so it has seen the month's partition.
    const other = otherProcess();
    expect(await ingestUsage(db(), org, feb.slice(0, 29))).toMatchObject({ accepted: 29 });
    expect(await ingestUsage(other, org, feb.slice(29))).toMatchObject({ accepted: 1 });

    // Refused while the cycle that holds the month is open.
    expect(await archiveMonth(db(), "2012-02")).toEqual({
      status: "refused",
      refusals: [{ organizationUuid: org, reason: "its billing cycle from 2012-02-01 is still open" }],
    });
    await db()
      .update(billingCycles)
      .set({ endDate: "2012-03-01" })
      .where(eq(billingCycles.organizationUuid, org));
    await db()
      .insert(billingCycles)
      .values({ organizationUuid: org, startDate: "2012-03-01", endDate: null });
    expect(await archiveMonth(db(), "2012-02")).toEqual({
      status: "archived",
      table: "usage_events_archive_y2012m02",
      rows: 30,
    });
    expect(await archiveMonth(db(), "2012-02")).toEqual({ status: "already_archived" });
    expect(await eventsOf(org)).toEqual({ n: "0", c: null });
    expect(await billedOf(org)).toEqual({ n: "30", c: "60000" });

    // The month takes no new events (not even an operator's backfill); its event ids stay taken;
    // the other process, which had seen the month attached, finds out on its next batch.
    const late = ev({ event_id: "ar-late", occurred_at: "2012-02-20T00:00:00Z" });
    for (const handle of [db(), other]) {
      const r = await ingestUsage(handle, org, [late, feb[0]], { backfill: true });
      expect(r.accepted).toBe(0);
      expect(r.duplicates).toBe(1);
      expect(r.rejected).toEqual([
        {
          index: 0,
          event_id: "ar-late",
          reason: expect.stringMatching(/falls in 2012-02, whose events are archived/),
        },
      ]);
    }

    const listed = await runEventsCommand(db(), { action: "months" });
    expect(listed.lines).toContainEqual(
      expect.stringMatching(/^2012-02 {2}archived {2}usage_events_archive_y2012m02 /),
    );
    expect(await restoreMonth(db(), "2012-02")).toEqual({ status: "restored" });
    expect(await eventsOf(org)).toEqual({ n: "30", c: "60000" });
    expect(await ingestUsage(other, org, [late], { backfill: true })).toMatchObject({ accepted: 1 });
    expect(await restoreMonth(db(), "2012-02")).toEqual({ status: "not_archived" });
    expect(await archiveMonth(db(), "1999-01")).toEqual({ status: "not_found" });
  });

  it("prices with the rule another process set a moment ago and refuses the workspace it deleted", async () => {
    const org = "org-config";
    const [ws] = await db().insert(workspaces).values({ organizationUuid: org, name: "Evals" }).returning();
    const workspaceUuid = ws?.workspaceUuid as string;
    const at = "2026-06-01T00:00:00Z";
    const priced = async (eventId: string, operation = "cfg-op") => {
      const r = await ingestUsage(db(), org, [
        ev({ event_id: eventId, operation, occurred_at: at, workspace_uuid: workspaceUuid }),
      ]);
      if (r.rejected.length) return r.rejected[0]?.reason;
      const [row] = await query<{ unit_price_micros: string }>(
        `select unit_price_micros::text from usage_events where event_id = '${eventId}' and organization_uuid = '${org}'`,
      );
      return row?.unit_price_micros;
    };
    const other = otherProcess();
    await setPriceRule(other, {
      organizationUuid: org,
      operation: "cfg-op",
      unitPrice: "0.10",
      validFrom: PAST,
    });
    expect(await priced("cfg-1")).toBe("100000");
    // A new price for the same dimensions, from a past date: this process had the old one cached.
    await setPriceRule(other, {
      organizationUuid: org,
      operation: "cfg-op",
      unitPrice: "0.30",
      validFrom: new Date(at),
    });
    expect(await priced("cfg-2")).toBe("300000");
    // A change to the global price list counts for every organization: the shipped default price
    // of the event's eval type first, then an operator's global price, which wins over it.
    expect(await priced("cfg-3-default", "cfg-global")).toBe("20000");
    await setPriceRule(other, { operation: "cfg-global", unitPrice: "0.05", validFrom: PAST });
    expect(await priced("cfg-3", "cfg-global")).toBe("50000");
    await other
      .update(workspaces)
      .set({ deletedAt: new Date() })
      .where(eq(workspaces.workspaceUuid, workspaceUuid));
    expect(await priced("cfg-4")).toBe(
      `workspace_uuid ${workspaceUuid} is not a workspace of this organization`,
    );
    await other
      .update(workspaces)
      .set({ deletedAt: null })
      .where(eq(workspaces.workspaceUuid, workspaceUuid));
    expect(await priced("cfg-5")).toBe("300000");
  });
});

describe("the events command line", () => {
  it("reads its arguments, refusing anything but a month as YYYY-MM", () => {
    expect(parseEventsArgs(["months"])).toEqual({ ok: true, value: { action: "months" } });
    expect(parseEventsArgs(["archive", "--month", "2026-01"])).toEqual({
      ok: true,
      value: { action: "archive", month: "2026-01" },
    });
    expect(parseEventsArgs(["restore", "--month=2025-12"])).toEqual({
      ok: true,
      value: { action: "restore", month: "2025-12" },
    });
    expect(parseEventsArgs(["archive", "--month", "2026-13"])).toEqual({
      ok: false,
      error: '--month must be a month as YYYY-MM, not "2026-13".',
    });
    expect(parseEventsArgs(["archive"])).toMatchObject({
      ok: false,
      error: "Usage: events archive --month YYYY-MM",
    });
    expect(parseEventsArgs(["archive", "--month", "2026-01", "extra"])).toMatchObject({ ok: false });
    expect(parseEventsArgs(["drop"])).toMatchObject({ ok: false });
  });

  // One process start (tsx, a new embedded database, its migrations): slow on a busy machine.
  it("lists the months as a process on the embedded database", { timeout: 180_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "eval-console-events-"));
    try {
      const list = runCli({ DATA_DIR: dataDir }, ["events", "months"]);
      expect(await list.exited, list.err()).toBe(0);
      const month = new Date().toISOString().slice(0, 7);
      expect(list.out()).toMatch(
        new RegExp(`^${month} {2}attached {2}usage_events_y${month.replace("-", "m")} `, "m"),
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
