import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import Papa from "papaparse";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Principal } from "../../server/api/principal";
import { installApiRouteHooks } from "../../server/api/route-hooks";
import { usageQueryRoutes } from "../../server/api/usage-queries";
import { usageReportRoutes } from "../../server/api/usage-report";
import { usageEvents, workspaces } from "../../server/db/schema";
import { pgPoolOf } from "../../server/metering/usage/pg-cursor";
import { installApiErrors } from "../../server/platform/errors";
import { createHttpApp } from "../../server/platform/http";
import { backends, startProduct, type TestProduct } from "./harness";

// The CSV exports read in batches (a cursor on PostgreSQL, keyset statements or a held cursor on
// PGlite): an export read a few rows at a time is byte for byte the one read at once, including rows
// that share a time (to the microsecond) across a batch's border, report pages walked one row at a
// time are the whole report, and a client that goes away mid-export releases what the read held.

const org = randomUUID();
const admin = {
  userId: "u-admin",
  email: "admin@exports.test",
  org: {
    org_id: org,
    org_name: "Exports Test",
    user_role: "Admin",
    inherited_user_roles_plus_current_role: ["Admin", "Member"],
    user_permissions: [],
  },
  impersonatorUserId: null,
  via: "bearer",
} satisfies Principal;

/** 11 events at 4 instants (with microseconds), so batches of 3 cut through rows of one time. */
const HOUR = new Date(Date.now() - 3 * 3_600_000);
HOUR.setUTCMinutes(0, 0, 0);
const SHARED = [4, 3, 3, 1];

describe.each(backends())("CSV exports read in batches on $name", (backend) => {
  let p: TestProduct;
  let base = "";
  let app: ReturnType<typeof createHttpApp>;
  const ws = randomUUID();

  beforeAll(async () => {
    p = await startProduct(backend);
    const { db } = p.database;
    await db.insert(workspaces).values({ workspaceUuid: ws, organizationUuid: org, name: '=Lab, "A"' });
    let n = 0;
    const rows = SHARED.flatMap((count, k) =>
      Array.from({ length: count }, () => ({
        organizationUuid: org,
        eventId: `exports-${n++}`,
        occurredAt: new Date(HOUR.getTime() + k * 60_000),
        // Every other event without a workspace or a creator: null group_by values in the report.
        workspaceUuid: n % 2 ? ws : null,
        createdBy: n % 3 ? `user-${n % 2}@exports.test` : null,
        operation: "generation",
        evalType: n % 2 ? "safety" : "accuracy",
        quantity: n,
        unitPriceMicros: 10_000n,
        costMicros: BigInt(n * 10_000),
      })),
    );
    await db.insert(usageEvents).values(rows);
    // Times in microseconds, as bulk loads write them (a JavaScript Date holds milliseconds).
    await db.execute(
      sql`update usage_events set occurred_at = occurred_at + interval '250 microseconds' where organization_uuid = ${org}`,
    );
    app = createHttpApp(pino({ level: "silent" }));
    installApiErrors(app);
    // The same routes twice: /v1 reads 3 rows (records) or 2 rows (report) at a time, /once all at once.
    for (const [prefix, batchRows, bytesPerSecond] of [
      ["/v1", 3, undefined],
      ["/once", 10_000, undefined],
      // Paced to a few hundred bytes a second: an export that stays open while the client leaves.
      ["/slow", 3, 400],
    ] as const) {
      await app.register(
        async (v1) => {
          installApiRouteHooks(v1, async () => admin);
          await v1.register(usageQueryRoutes, { db, exportLimits: { batchRows, bytesPerSecond } });
          await v1.register(usageReportRoutes, { db, csvLimits: { batchRows: Math.min(batchRows, 2) } });
        },
        { prefix },
      );
    }
    await app.listen({ port: 0, host: "127.0.0.1" });
    const addr = app.server.address();
    base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    await app?.close();
    await p?.dispose();
  });

  const text = async (url: string) => {
    const res = await fetch(`${base}${url}`);
    const body = await res.text();
    expect(res.status, body).toBe(200);
    return body;
  };

  /** Whether the database still holds something for an export: a checked-out connection or a cursor. */
  const held = async () => {
    const pool = pgPoolOf(p.database.db);
    if (pool) return pool.totalCount - pool.idleCount;
    // The unnamed portal is this statement's own.
    const res = (await p.database.db.execute(
      sql`select count(*)::int as n from pg_cursors where name <> ''`,
    )) as unknown as { rows: { n: number }[] };
    return res.rows[0]?.n ?? 0;
  };

  it("sends the same records CSV in batches of 3 as in one read, rows of one time across borders", async () => {
    const batched = await text("/v1/usage/export.csv");
    expect(batched).toBe(await text("/once/usage/export.csv"));
    const lines = batched.trimEnd().split("\r\n");
    expect(lines[0]).toMatch(/^Date,Eval,Operation,Eval Type/);
    expect(lines).toHaveLength(1 + 11);
    // Every event once, newest first; the formula-like workspace name neutralised and quoted.
    const rows = Papa.parse<string[]>(batched.trimEnd(), { newline: "\r\n" }).data.slice(1);
    const quantities = rows.map((r) => Number(r[8]));
    expect([...quantities].sort((a, b) => a - b)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    const times = rows.map((r) => r[0] ?? "");
    expect(times).toEqual([...times].sort().reverse());
    expect(batched).toContain(`"'=Lab, ""A"""`);
    // A filter keeps the batches' order and borders too.
    expect(await text("/v1/usage/export.csv?eval_type=safety")).toBe(
      await text("/once/usage/export.csv?eval_type=safety"),
    );
    expect(await held()).toBe(0);
  });

  it("exports the spec's twelve columns, and with details=pricing the pricing details after them", async () => {
    const spec =
      "Date,Eval,Operation,Eval Type,Eval ID,Run ID,Workspace,Created By,Quantity,Unit Price,Cost,Price Adjustment Note";
    const plain = (await text("/v1/usage/export.csv")).trimEnd().split("\r\n");
    expect(plain[0]).toBe(spec);
    const detailed = await text("/v1/usage/export.csv?details=pricing");
    expect(detailed).toBe(await text("/once/usage/export.csv?details=pricing"));
    const lines = detailed.trimEnd().split("\r\n");
    expect(lines[0]).toBe(`${spec},Price Rule ID,Price Rule Version,Late From Period,Late Occurred At`);
    // The same records in the same order: each row the plain one, then its four detail cells.
    const cells = (csv: string[]) =>
      Papa.parse<string[]>(csv.slice(1).join("\r\n"), { newline: "\r\n" }).data;
    const [plainRows, detailedRows] = [cells(plain), cells(lines)];
    expect(detailedRows).toHaveLength(11);
    expect(detailedRows.map((r) => r.slice(0, 12))).toEqual(plainRows);
    expect(detailedRows.every((r) => r.length === 16 && r.slice(12).every((c) => c === ""))).toBe(true);
    // Filters apply to both alike.
    const safety = await text("/v1/usage/export.csv?eval_type=safety&details=pricing");
    expect(safety.trimEnd().split("\r\n")).toHaveLength(
      (await text("/v1/usage/export.csv?eval_type=safety")).trimEnd().split("\r\n").length,
    );
    expect(await held()).toBe(0);
  });

  it("refuses an unknown details value with 400 and the error JSON, before reading anything", async () => {
    for (const q of [
      "details=",
      "details=PRICING",
      "details=price_rule",
      "details=pricing&details=pricing",
    ]) {
      const res = await fetch(`${base}/v1/usage/export.csv?${q}`);
      const body = await res.text();
      expect(res.status, `${q}: ${body}`).toBe(400);
      expect(res.headers.get("content-type"), q).toMatch(/^application\/json/);
      expect(JSON.parse(body).error, q).toMatchObject({
        code: expect.any(String),
        message: expect.stringContaining("details must be pricing."),
      });
    }
    expect(await held()).toBe(0);
  });

  it("sends the same report CSV in batches of 2, and pages of one row walk the whole report", async () => {
    const start = new Date(HOUR.getTime() - 86_400_000).toISOString().slice(0, 10);
    const end = new Date(HOUR.getTime() + 86_400_000).toISOString().slice(0, 10);
    for (const q of [
      `starting_at=${start}&ending_at=${end}&bucket_width=1h&group_by=workspace,created_by`,
      `starting_at=${start}&ending_at=${end}&bucket_width=1d&group_by=workspace,eval_type`,
      `starting_at=${start}&ending_at=${end}&bucket_width=1h`,
    ]) {
      const csv = await text(`/v1/usage/report?${q}&format=csv`);
      expect(csv).toBe(await text(`/once/usage/report?${q}&format=csv`));
      const all = JSON.parse(await text(`/v1/usage/report?${q}&page_size=1000`));
      expect(csv.trimEnd().split("\r\n")).toHaveLength(1 + all.total_rows);
      const walked: unknown[] = [];
      let next: string | null = null;
      do {
        const page = JSON.parse(
          await text(`/v1/usage/report?${q}&page_size=1${next ? `&page=${next}` : ""}`),
        );
        expect(page.totals).toEqual(all.totals);
        expect(page.total_rows).toBe(all.total_rows);
        walked.push(...page.data);
        next = page.next_page;
      } while (next);
      expect(walked).toEqual(all.data);
    }
    // The grouping has null workspaces and creators, which page cursors carry.
    const q = `starting_at=${start}&ending_at=${end}&bucket_width=1h&group_by=workspace,created_by`;
    const rows = JSON.parse(await text(`/v1/usage/report?${q}`)).data;
    expect(rows.some((r: { workspace_uuid: string | null }) => r.workspace_uuid === null)).toBe(true);
    expect(rows.some((r: { created_by: string | null }) => r.created_by === null)).toBe(true);
    expect(await held()).toBe(0);
  });

  it("releases the export's cursor or connection when the client goes away mid-export", async () => {
    const aborted = new AbortController();
    const res = await fetch(`${base}/slow/usage/export.csv`, { signal: aborted.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^Date,Eval/);
    // Paced: the export is still open; on PostgreSQL its cursor holds a connection.
    if (pgPoolOf(p.database.db)) expect(await held()).toBe(1);
    aborted.abort();
    await vi.waitFor(async () => expect(await held()).toBe(0), { timeout: 20_000, interval: 100 });
    // And the organization may export again (the export's place is free).
    for (let i = 0; i < 2; i++) expect((await text("/v1/usage/export.csv")).length).toBeGreaterThan(0);
  });
});
