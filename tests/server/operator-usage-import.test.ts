import { request } from "node:http";
import { Readable } from "node:stream";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog } from "../../server/db/schema";
import { closeCycle, openCycle } from "../../server/metering/billing/billing";
import { setPriceRule } from "../../server/metering/pricing/prices";
import { accessToken, backends, startProduct, type TestProduct } from "./harness";
import { rowsOf } from "./tenants";

// POST /v1/operator/organizations/{organization}/usage/import: the CLI's `usage import` over
// HTTP, the body streamed in batches; the same counts, the same refusals, one audit entry a call.

const PAST = new Date("2020-01-01T00:00:00Z");
const recent = () => new Date(Date.now() - 3600_000).toISOString();
const ev = (id: string, at = recent(), extra: Record<string, unknown> = {}) => ({
  event_id: id,
  occurred_at: at,
  operation: "generation",
  eval_type: "safety",
  ...extra,
});
const ndjson = (lines: unknown[]) =>
  lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n");

describe.each(backends())("usage import through the operator API on $name", (backend) => {
  let p: TestProduct;
  let org: string;
  beforeAll(async () => {
    p = await startProduct(backend);
    const [row] = rowsOf<{ id: string }>(
      await p.database.db.execute(sql`select id from identity.organization where slug = 'acme-ai'`),
    );
    org = row?.id ?? "";
    await setPriceRule(p.database.db, { unitPrice: "0.01", validFrom: PAST });
  });
  afterAll(async () => p?.dispose());

  const local = () => ({ authorization: `Bearer ${p.identity.ctx.backendApiKey}` });
  const post = (
    url: string,
    payload: string | Readable | undefined,
    type: string | null,
    headers: Record<string, string> = local(),
  ) =>
    p.api.app.inject({
      method: "POST",
      url,
      headers: { ...headers, ...(type ? { "content-type": type } : {}) },
      ...(payload === undefined ? {} : { payload }),
    });
  const importTo = (ref: string, body: string | Readable, type = "application/x-ndjson", query = "") =>
    post(`/v1/operator/organizations/${encodeURIComponent(ref)}/usage/import${query}`, body, type);
  const stored = async (prefix: string) => {
    const [row] = rowsOf<{ n: number }>(
      await p.database.db.execute(
        sql`select count(*)::int as n from usage_events where organization_uuid = ${org} and event_id like ${`${prefix}%`}`,
      ),
    );
    return row?.n ?? 0;
  };
  const audits = async () =>
    p.database.db
      .select({ source: auditLog.source, email: auditLog.actorEmail, after: auditLog.after })
      .from(auditLog)
      .where(and(eq(auditLog.action, "usage.imported"), eq(auditLog.organizationUuid, org)))
      .orderBy(auditLog.id);

  it("imports NDJSON with per-event counts and lines; a second import only finds duplicates", async () => {
    const body = ndjson([
      ev("nd-1"),
      "",
      ev("nd-2"),
      "{oops}",
      ev("nd-3", "1999-01-01T00:00:00Z"),
      ev("nd-1"),
    ]);
    const first = await importTo("acme-ai", body);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ events: 5, accepted: 2, duplicates: 1, rejected: 2 });
    expect(first.json().rejections).toEqual([
      { line: 4, event_id: null, reason: expect.stringMatching(/^line 4: not valid JSON/) },
      { line: 5, event_id: "nd-3", reason: expect.any(String) },
    ]);
    const again = await importTo("Acme AI", body);
    expect(again.json()).toMatchObject({ events: 5, accepted: 0, duplicates: 3, rejected: 2 });
    expect(await stored("nd-")).toBe(2);
    // One audit entry per call, with its counts; the local credential is the command line.
    const rows = await audits();
    expect(rows.slice(-2).map((r) => [r.source, r.after])).toEqual([
      [
        "cli",
        expect.objectContaining({ format: "ndjson", events: 5, accepted: 2, duplicates: 1, rejected: 2 }),
      ],
      ["cli", expect.objectContaining({ accepted: 0, duplicates: 3, completed: true })],
    ]);
  });

  it("imports CSV (any charset spelling of UTF-8), with credits audited, late usage billed in the open cycle and backfill into the closed one", async () => {
    const db = p.database.db;
    await openCycle(db, org, "2026-01-01");
    await closeCycle(db, org, { endDate: "2026-02-01", openNext: true });
    const csv = [
      "\uFEFFevent_id,occurred_at,operation,eval_type,quantity,is_jailbreak,name,notes,cost",
      `csv-1,${recent()},scoring,safety,2,true,,,`,
      `csv-2,${recent()},generation,accuracy,,no,"Eval, ""quoted""\nacross lines",,`,
      `csv-3,${recent()},scoring,safety,,,,Credit for an outage,-5.00`,
      "csv-old,2026-01-10T10:00:00Z,scoring,safety,,,,,",
    ].join("\r\n");
    const first = await importTo(org, csv, "text/csv; charset=UTF-8");
    expect(first.statusCode, first.body).toBe(200);
    // csv-old's day is in the closed cycle: late usage, billed in the open one.
    expect(first.json()).toMatchObject({ events: 4, accepted: 4, duplicates: 0, rejected: 0 });
    const [old] = rowsOf<{ late: string | null }>(
      await db.execute(
        sql`select late_period_start::text as late from usage_events where organization_uuid = ${org} and event_id = 'csv-old'`,
      ),
    );
    expect(old?.late).toBe("2026-01-01");
    // An operator's backfill bills such an event in its closed cycle instead.
    const backfilled = await importTo(
      org,
      csv.replaceAll("csv-old", "csv-back"),
      "text/csv",
      "?backfill=true",
    );
    expect(backfilled.json()).toMatchObject({ accepted: 1, duplicates: 3, rejected: 0 });
    const [back] = rowsOf<{ late: string | null; at: string }>(
      await db.execute(
        sql`select late_period_start::text as late, to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD') as at from usage_events where organization_uuid = ${org} and event_id = 'csv-back'`,
      ),
    );
    expect(back).toEqual({ late: null, at: "2026-01-10" });
    const [credit] = rowsOf<{ n: number }>(
      await db.execute(
        sql`select count(*)::int as n from audit_log where action = 'usage.adjustment_recorded' and target_id = 'csv-3'`,
      ),
    );
    expect(credit?.n).toBe(1);

    // An operator's own bearer token: the audit entry names them.
    await p.database.db.execute(
      sql`update identity."user" set role = 'admin' where email = 'admin@acme.test'`,
    );
    const token = await accessToken(p, "admin@acme.test");
    const own = await post(
      `/v1/operator/organizations/${org}/usage/import`,
      ndjson([ev("own-1")]),
      "application/x-ndjson",
      { authorization: `Bearer ${token}` },
    );
    expect(own.json()).toMatchObject({ accepted: 1 });
    const last = (await audits()).at(-1);
    expect(last).toMatchObject({ source: "console", email: "admin@acme.test" });
    await p.database.db.execute(
      sql`update identity."user" set role = 'user' where email = 'admin@acme.test'`,
    );
  });

  it("streams a body of many batches, far past the 1 MiB of other routes", async () => {
    const total = 25_000;
    async function* lines() {
      for (let i = 0; i < total; i += 500)
        yield `${Array.from({ length: 500 }, (_, j) => JSON.stringify(ev(`big-${i + j}`, recent(), { name: "x".repeat(80) }))).join("\n")}\n`;
    }
    const res = await importTo("acme-ai", Readable.from(lines()));
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.json()).toMatchObject({ events: total, accepted: total, rejected: 0 });
    expect(await stored("big-")).toBe(total);
  }, 120_000);

  it("stores each batch as the body arrives, before the body has ended", async () => {
    const address = await p.api.app.listen({ port: 0, host: "127.0.0.1" });
    const url = new URL(`/v1/operator/organizations/${org}/usage/import`, address);
    let storedBeforeEnd = 0;
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, {
        method: "POST",
        headers: { ...local(), "content-type": "application/x-ndjson" },
      });
      req.on("response", (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      void (async () => {
        // A whole batch, then the body stays open until the server has stored it.
        req.write(
          `${Array.from({ length: 10_000 }, (_, i) => JSON.stringify(ev(`live-${i}`))).join("\n")}\n`,
        );
        const until = Date.now() + 60_000;
        while ((await stored("live-")) < 10_000 && Date.now() < until)
          await new Promise((r) => setTimeout(r, 200));
        storedBeforeEnd = await stored("live-");
        req.end(`${JSON.stringify(ev("live-last"))}\n`);
      })().catch(reject);
    });
    const res = await answer;
    expect(res.status, res.body).toBe(200);
    expect(storedBeforeEnd).toBe(10_000);
    expect(JSON.parse(res.body)).toMatchObject({ events: 10_001, accepted: 10_001 });
    expect(await stored("live-")).toBe(10_001);
  }, 120_000);

  it("rejects an over-long NDJSON line as one event, and stops a runaway CSV record with a 400", async () => {
    const long = ndjson([ev("long-1"), `{"event_id":"${"x".repeat(1_100_000)}"}`, ev("long-2")]);
    const res = await importTo("acme-ai", long);
    expect(res.json()).toMatchObject({ events: 3, accepted: 2, rejected: 1 });
    expect(res.json().rejections[0]).toMatchObject({ line: 2, reason: expect.stringMatching(/longer than/) });
    const runaway = `event_id,occurred_at,operation,eval_type\nrun-1,${recent()},generation,safety\n"${"y".repeat(5_000_000)}`;
    const refused = await importTo("acme-ai", runaway, "text/csv");
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toMatch(
      /A CSV record runs past 1048576 characters \(an unclosed quote\?\); the import stopped before line \d/,
    );
  });

  it("refuses bad input with the error JSON and a 4xx, writing nothing", async () => {
    const count = async () => {
      const [row] = rowsOf<{ n: string }>(
        await p.database.db.execute(
          sql`select (select count(*) from usage_events) || ',' || (select count(*) from audit_log) as n`,
        ),
      );
      return row?.n;
    };
    const before = await count();
    const cases: [
      Promise<{ statusCode: number; json(): { error: { code: string; message: string } } }>,
      number,
      RegExp,
    ][] = [
      [importTo("acme-ai", "{}", "application/json"), 415, /application\/x-ndjson or text\/csv/],
      [importTo("acme-ai", "a,b", "text/plain"), 415, /x-ndjson/],
      [importTo("acme-ai", "x", "text/csv; charset=latin1"), 415, /UTF-8/],
      [post(`/v1/operator/organizations/acme-ai/usage/import`, undefined, null), 415, /x-ndjson/],
      [importTo("no-such-org", ndjson([ev("nope")])), 404, /./],
      [importTo("acme-ai", ndjson([ev("nope")]), "application/x-ndjson", "?backfill=yes"), 400, /backfill/],
      [importTo("acme-ai", ndjson([ev("nope")]), "application/x-ndjson", "?other=1"), 400, /other/],
      [
        post("/v1/operator/organizations/a%00b/usage/import", ndjson([ev("nope")]), "application/x-ndjson"),
        400,
        /NUL/,
      ],
      [importTo("acme-ai", "event_id,when\nx,y\n", "text/csv"), 400, /unknown column\(s\) when/],
      [importTo("acme-ai", "event\u0000_id,occurred_at\nx,y\n", "text/csv"), 400, /unknown column/],
      [
        post(
          "/v1/operator/organizations/acme-ai/usage/import",
          ndjson([ev("nope")]),
          "application/x-ndjson",
          {
            "content-length": String(3 * 1024 ** 3),
            ...local(),
          },
        ),
        413,
        /2 GiB/,
      ],
    ];
    for (const [call, status, message] of cases) {
      const res = await call;
      expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
      expect(res.json().error.message).toMatch(message);
    }
    expect(await count()).toBe(before);
    // Customers and callers without a token never reach the body.
    const customer = await post(
      `/v1/operator/organizations/${org}/usage/import`,
      ndjson([ev("nope")]),
      "application/x-ndjson",
      { authorization: `Bearer ${await accessToken(p, "member@acme.test")}` },
    );
    expect(customer.statusCode).toBe(403);
    const none = await post(`/v1/operator/organizations/${org}/usage/import`, "x", "text/csv", {});
    expect(none.statusCode).toBe(401);
    expect(await count()).toBe(before);
  });

  it("rejects NUL characters event by event, as the command line does", async () => {
    const res = await importTo(
      "acme-ai",
      ndjson([ev("nul-1", recent(), { name: "a\u0000b" }), `{"event_id":"nul-2\u0000"}`, ev("nul-3")]),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ events: 3, accepted: 1, rejected: 2 });
  });

  it("is in the OpenAPI document with both body types", async () => {
    const doc = (await p.api.app.inject("/v1/openapi.json")).json();
    const op = doc.paths["/v1/operator/organizations/{organization}/usage/import"].post;
    expect(Object.keys(op.requestBody.content).sort()).toEqual(["application/x-ndjson", "text/csv"]);
    expect(op.parameters.map((x: { name: string }) => x.name).sort()).toEqual(["backfill", "organization"]);
    expect(op.responses["200"].content["application/json"].schema.$ref).toMatch(/UsageImportResult/);
  });
});
