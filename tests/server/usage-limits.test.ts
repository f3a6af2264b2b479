import { randomUUID } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../server/api/principal";
import { installApiRouteHooks } from "../../server/api/route-hooks";
import { usageQueryRoutes } from "../../server/api/usage-queries";
import { billingCycles, usageEvents } from "../../server/db/schema";
import { installApiErrors } from "../../server/platform/errors";
import { createHttpApp } from "../../server/platform/http";
import { backends, startProduct, type TestProduct } from "./harness";
import { productWithWorkspaces } from "./workspaces-fixture";

// Bounded usage reads: the series refuses a span of more than 1,000 buckets whatever the cycle
// (an early event once made a cycle start at 0001-01-01: 740,000 daily buckets), text that a text
// column cannot hold is a 400 on every route, and an export that fails part-way breaks its transfer.

/** Events stored as the ingestion would, straight into the table (this suite is about reads). */
function eventRows(organizationUuid: string, n: number, at: Date) {
  return Array.from({ length: n }, (_, i) => ({
    organizationUuid,
    eventId: `limits-${randomUUID()}-${i}`,
    occurredAt: new Date(at.getTime() - i * 1000),
    operation: "generation",
    evalType: "safety",
    unitPriceMicros: 10_000n,
    costMicros: 10_000n,
  }));
}

describe.each(backends())("usage read limits on $name", (backend) => {
  const t = productWithWorkspaces(backend);

  it("answers a bounded 400 at once for a cycle that starts in year 1, in every grouping", async () => {
    // Globex has no cycle yet: its first (and current) one starts on 0001-01-01.
    await t.p.database.db
      .insert(billingCycles)
      .values({ organizationUuid: t.f.globexId, startDate: "0001-01-01", endDate: null });
    for (const grouping of ["daily", "weekly", "monthly"]) {
      const started = Date.now();
      const res = await t.f.call("other", "GET", `/v1/usage/series?grouping=${grouping}`);
      expect(Date.now() - started, grouping).toBeLessThan(2_000);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.body.length).toBeLessThan(500);
      expect(res.json().error.code).toBe("series_too_long");
      expect(res.json().error.message).toMatch(
        /at most 1,000\. Use a coarser grouping|shorter billing cycle/,
      );
    }
    // The other views of that cycle stay bounded too.
    const records = await t.f.call("other", "GET", "/v1/usage/records?page_size=500");
    expect(records.statusCode).toBe(200);
    expect((await t.f.call("other", "GET", "/v1/usage/records?page_size=501")).statusCode).toBe(400);
    expect((await t.f.call("other", "GET", "/v1/usage/summary")).statusCode).toBe(200);
  });

  it("keeps the console's periods well inside the bound: a year daily, weekly and monthly", async () => {
    const [year] = await t.p.database.db
      .insert(billingCycles)
      .values({ organizationUuid: t.f.acmeId, startDate: "2024-01-01", endDate: "2025-01-01" })
      .returning();
    const url = (grouping: string) =>
      `/v1/usage/series?billing_cycle_uuid=${year?.billingCycleUuid}&grouping=${grouping}`;
    const sizes: Record<string, number> = {};
    for (const grouping of ["daily", "weekly", "monthly"]) {
      const res = await t.f.call("admin", "GET", url(grouping));
      expect(res.statusCode, res.body).toBe(200);
      sizes[grouping] = res.json().buckets.length;
    }
    expect(sizes).toEqual({ daily: 366, weekly: 53, monthly: 12 });
  });

  it("answers 400 with the error JSON for NUL and unpaired surrogates in query, path and body", async () => {
    const calls: [string, string, unknown?][] = [
      ["GET", "/v1/usage/records?search=%00"],
      ["GET", "/v1/usage/records?search=a%00b&page=1"],
      ["GET", "/v1/usage/summary?eval_type=%00"],
      ["GET", "/v1/usage/series?operation=x%00"],
      ["GET", "/v1/usage/export.csv?search=%00"],
      ["GET", "/v1/usage/export.csv?modality=%00&modality=text"],
      ["GET", "/v1/workspaces/?show_deleted=%00"],
      ["DELETE", "/v1/workspaces/00000000-0000-4000-8000-000000000000/members/a%00@acme.test"],
      ["POST", "/v1/workspaces/", { name: "Lab\u0000", organization_uuid: t.f.acmeId }],
      ["POST", "/v1/workspaces/", { name: "Lab \uD800", organization_uuid: t.f.acmeId }],
      ["POST", "/v1/workspaces/", { name: "Lab \uDC00x", organization_uuid: t.f.acmeId }],
      ["PUT", "/v1/workspaces/my-workspace", { workspace_uuid: "\u0000" }],
    ];
    for (const [method, url, body] of calls) {
      const res = await t.f.call("admin", method as "GET", url, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(400);
      expect(typeof res.json().error.code, url).toBe("string");
      expect(typeof res.json().error.message, url).toBe("string");
    }
    const names = (await t.f.call("admin", "GET", "/v1/workspaces/")).json() as { name: string }[];
    expect(names.some((w) => w.name.startsWith("Lab"))).toBe(false);
  });
});

describe("a streamed export that fails part-way", () => {
  const org = `org-${randomUUID()}`;
  const admin = {
    userId: "u-admin",
    email: "admin@export.test",
    org: {
      org_id: org,
      org_name: "Export Test",
      user_role: "Admin",
      inherited_user_roles_plus_current_role: ["Admin", "Member"],
      user_permissions: [],
    },
    impersonatorUserId: null,
    via: "bearer",
  } satisfies Principal;
  let p: TestProduct;
  let base = "";
  let app: ReturnType<typeof createHttpApp>;

  beforeAll(async () => {
    p = await startProduct(backends()[0]!);
    await p.database.db.insert(usageEvents).values(eventRows(org, 5, new Date(Date.now() - 3_600_000)));
    app = createHttpApp(pino({ level: "silent" }));
    installApiErrors(app);
    await app.register(
      async (v1) => {
        installApiRouteHooks(v1, async () => admin);
        // At most 3 records per export here, so the fourth cuts the transfer.
        await v1.register(usageQueryRoutes, { db: p.database.db, exportLimits: { maxRows: 3 } });
      },
      { prefix: "/v1" },
    );
    await app.listen({ port: 0, host: "127.0.0.1" });
    const addr = app.server.address();
    base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    await app?.close();
    await p?.dispose();
  });

  it("breaks the transfer, so the client sees an error and never a complete file", async () => {
    const res = await fetch(`${base}/v1/usage/export.csv`);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let failure: unknown = null;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    } catch (err) {
      failure = err;
    }
    expect(failure, "the read must fail").not.toBeNull();
    expect(text.split("\r\n")[0]).toMatch(/^Date,Eval,Operation/);
    expect(text.split("\r\n").filter((l) => l.startsWith("20"))).toHaveLength(3);
  });

  it("sends a complete file when the export is within the limit", async () => {
    const res = await fetch(`${base}/v1/usage/export.csv?eval_type=none`);
    expect(res.status).toBe(200);
    expect((await res.text()).trimEnd().split("\r\n")).toHaveLength(1);
  });
});
