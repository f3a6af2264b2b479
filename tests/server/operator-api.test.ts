import { and, asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, priceRules, user } from "../../server/db/schema";
import { createIngestKey } from "../../server/metering/ingestion/ingest-keys";
import { backends } from "./harness";
import { productWithWorkspaces, type Who } from "./workspaces-fixture";

// The operator API's organizations, price rules, operators, workspace restore and audit purge:
// each effect seen through the API, each refusal a 4xx with the error JSON and no write, each
// change audited.

describe.each(backends())("operator API on $name", (backend) => {
  const t = productWithWorkspaces(backend);
  const local = () => ({ authorization: `Bearer ${t.p.identity.ctx.backendApiKey}` });
  /** A call with the server's local operator credential (what the CLI uses). */
  const op = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) =>
    t.f.call("none", method, url, payload, local());

  /** Every row an operator call may write, to show a refusal wrote nothing. */
  async function rows() {
    const db = t.p.database.db;
    const q = async (text: string) => (await db.execute(sql.raw(text))) as unknown as { rows: unknown[] };
    return JSON.stringify({
      prices: (await q("select * from price_rules order by price_rule_uuid")).rows,
      cycles: (await q("select * from billing_cycles order by billing_cycle_uuid")).rows,
      payments: (await q("select * from payments order by payment_uuid")).rows,
      groups: (await q("select * from workspace_groups order by workspace_group_uuid")).rows,
      members: (await q("select * from workspace_group_members order by 1, 2")).rows,
      roles: (await q(`select id, role from identity."user" order by id`)).rows,
      audit: (await q("select count(*)::int as n from audit_log")).rows,
    });
  }

  async function refused(
    status: number,
    run: () => Promise<{ statusCode: number; body: string; json(): unknown }>,
  ): Promise<{ code: string; message: string }> {
    const before = await rows();
    const res = await run();
    expect(res.statusCode, res.body).toBe(status);
    const err = (res.json() as { error: { code: string; message: string } }).error;
    expect(err.code).toMatch(/^[a-z_]+$/);
    expect(await rows()).toBe(before);
    return err;
  }

  const lastAudit = async (action: string) => {
    const [row] = await t.p.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, action as typeof auditLog.$inferSelect.action))
      .orderBy(sql`${auditLog.id} desc`)
      .limit(1);
    return row;
  };

  it("refuses customers 403 and callers without a token 401, on every operator route", async () => {
    const routes: [string, string][] = [
      ["GET", "/v1/operator/organizations"],
      ["GET", `/v1/operator/organizations/${t.f.acmeId}`],
      ["GET", "/v1/operator/price-rules"],
      ["POST", "/v1/operator/price-rules"],
      ["GET", "/v1/operator/operators"],
      ["POST", "/v1/operator/operators"],
      ["DELETE", "/v1/operator/operators/member@acme.test"],
      ["GET", "/v1/operator/event-partitions"],
      ["POST", "/v1/operator/event-partitions/2026-01/archive"],
      ["POST", "/v1/operator/audit-log/purge"],
      ["GET", `/v1/operator/organizations/${t.f.acmeId}/billing-cycles`],
      ["POST", `/v1/operator/organizations/${t.f.acmeId}/payments`],
      ["PUT", `/v1/operator/organizations/${t.f.acmeId}/workspace-groups`],
    ];
    const who: [Who, number][] = [
      ["admin", 403],
      ["member", 403],
      ["other", 403],
      ["adminKey", 401],
      ["none", 401],
    ];
    for (const [method, url] of routes)
      for (const [w, status] of who) {
        const before = await rows();
        const res = await t.f.call(w, method as "GET", url, method === "GET" ? undefined : {});
        expect(res.statusCode, `${w} ${method} ${url}: ${res.body}`).toBe(status);
        expect(res.json().error.code).toBe(status === 403 ? "forbidden" : "unauthorized");
        expect(await rows()).toBe(before);
      }
  });

  it("documents every operator call in the OpenAPI document, with its request and response schemas", async () => {
    const doc = (await t.f.call("none", "GET", "/v1/openapi.json")).json();
    const prices = doc.paths["/v1/operator/price-rules"];
    expect(prices.post.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/PriceRuleBody",
    });
    // The new rule and what it re-rated (the open cycles' events, the closed cycles' corrections).
    expect(prices.post.responses["201"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/SetPriceResult",
    });
    expect(doc.components.schemas.SetPriceResult.required).toEqual(
      expect.arrayContaining(["price_rule_uuid", "version", "rerating"]),
    );
    expect(doc.components.schemas.PriceRerating.required).toEqual([
      "organizations",
      "events",
      "before_total",
      "after_total",
      "corrections",
    ]);
    expect(prices.post.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.schemas.PriceRule.required).toEqual(
      expect.arrayContaining(["price_rule_uuid", "unit_price_usd", "valid_from", "valid_to", "status"]),
    );
    const cycles = "/v1/operator/organizations/{organization}/billing-cycles";
    // Opening and closing take an optional body (the defaults apply without one).
    expect(doc.paths[cycles].post.requestBody.required).toBe(false);
    expect(doc.paths[`${cycles}/close`].post.requestBody.required).toBe(false);
    const operatorOps = Object.entries(doc.paths as Record<string, Record<string, { tags: string[] }>>)
      .filter(([path]) => path.startsWith("/v1/operator/"))
      .flatMap(([path, methods]) => Object.entries(methods).map(([m, op]) => ({ op, name: `${m} ${path}` })));
    expect(operatorOps.map((o) => o.name)).toEqual(
      expect.arrayContaining([
        "get /v1/operator/organizations",
        "get /v1/operator/organizations/{organization}",
        "get /v1/operator/price-rules",
        "post /v1/operator/price-rules",
        "get /v1/operator/organizations/{organization}/awaiting-pricing",
        "get /v1/operator/operators",
        "post /v1/operator/operators",
        "delete /v1/operator/operators/{email}",
        `get ${cycles}`,
        `post ${cycles}`,
        `post ${cycles}/close`,
        "get /v1/operator/organizations/{organization}/payments",
        "post /v1/operator/organizations/{organization}/payments",
        "get /v1/operator/organizations/{organization}/workspace-groups",
        "put /v1/operator/organizations/{organization}/workspace-groups",
        "get /v1/operator/event-partitions",
        "post /v1/operator/event-partitions/{month}/archive",
        "post /v1/operator/event-partitions/{month}/restore",
        "post /v1/operator/audit-log/purge",
        "post /v1/operator/workspaces/{workspace_uuid}/restore",
      ]),
    );
    expect(operatorOps.every((o) => o.op.tags.includes("Operator"))).toBe(true);
  });

  it("lists organizations in numbered pages, searched by name or slug, and finds one by uuid, slug or name", async () => {
    const all = await op("GET", "/v1/operator/organizations");
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json()).toMatchObject({ total_count: 2 });
    const [acme, globex] = all.json().organizations;
    expect(acme).toMatchObject({ organization_uuid: t.f.acmeId, name: "Acme AI", member_count: 3 });
    expect(globex).toMatchObject({ organization_uuid: t.f.globexId, name: "Globex", slug: "globex" });
    expect(Number.isNaN(Date.parse(acme.created_at))).toBe(false);

    const page2 = (await op("GET", "/v1/operator/organizations?page=2&page_size=1")).json();
    expect(page2).toEqual({ organizations: [globex], total_count: 2 });
    const searched = (await op("GET", "/v1/operator/organizations?search=GLOB")).json();
    expect(searched).toEqual({ organizations: [globex], total_count: 1 });
    // LIKE's wildcards are plain characters in a search.
    expect((await op("GET", "/v1/operator/organizations?search=%25")).json()).toEqual({
      organizations: [],
      total_count: 0,
    });

    for (const ref of [t.f.acmeId, acme.slug, "Acme AI"])
      expect((await op("GET", `/v1/operator/organizations/${encodeURIComponent(ref)}`)).json()).toEqual(acme);
    expect((await refused(404, () => op("GET", "/v1/operator/organizations/nope"))).message).toBe(
      'No organization with uuid, slug or name "nope".',
    );
    await refused(400, () => op("GET", "/v1/operator/organizations?page=0"));
    await refused(400, () => op("GET", "/v1/operator/organizations?page_size=101"));
    await refused(400, () => op("GET", "/v1/operator/organizations?sort=name"));
  });

  it("sets a price from a past valid_from: it prices an event of that time, ends the open rule, and is audited", async () => {
    const now = Date.now();
    const validFrom = new Date(now - 3_600_000).toISOString();
    const body = {
      organization_uuid: t.f.acmeId,
      operation: "op-api-test",
      eval_type: "safety",
      unit_price_usd: "0.0125",
      valid_from: validFrom,
    };
    const created = await op("POST", "/v1/operator/price-rules", body);
    expect(created.statusCode, created.body).toBe(201);
    const rule = created.json();
    expect(rule).toMatchObject({
      organization_uuid: t.f.acmeId,
      operation: "op-api-test",
      eval_type: "safety",
      modality: null,
      rule_metric: null,
      unit_price_usd: "0.0125",
      valid_from: validFrom,
      valid_to: null,
      status: "active",
    });

    // An event of ten minutes ago, sent now, is priced by the rule.
    const { token } = await createIngestKey(t.p.database.db, { name: "evals", organizationUuid: t.f.acmeId });
    const sent = await t.p.api.app.inject({
      method: "POST",
      url: "/v1/usage/events",
      headers: { "x-api-key": token },
      payload: {
        events: [
          {
            event_id: "op-api-priced",
            occurred_at: new Date(now - 600_000).toISOString(),
            operation: "op-api-test",
            eval_type: "safety",
            quantity: 4,
          },
        ],
      },
    });
    expect(sent.json()).toMatchObject({ accepted: 1 });
    const records = await t.f.call("admin", "GET", "/v1/usage/records?search=op-api-test");
    expect(records.statusCode, records.body).toBe(200);
    expect(records.json().records).toMatchObject([
      { operation: "op-api-test", unit_price: "0.0125", cost: "0.05", price_rule_uuid: rule.price_rule_uuid },
    ]);

    // A new version from a later moment ends the first; the list keeps both, newest first.
    const later = new Date(now + 86_400_000).toISOString();
    const next = await op("POST", "/v1/operator/price-rules", {
      ...body,
      unit_price_usd: "0.02",
      valid_from: later,
    });
    expect(next.json()).toMatchObject({ status: "scheduled", unit_price_usd: "0.02" });
    const list = await op("GET", `/v1/operator/price-rules?organization_uuid=${t.f.acmeId}`);
    const versions = (list.json().price_rules as { operation: string }[]).filter(
      (r) => r.operation === "op-api-test",
    );
    expect(versions).toMatchObject([
      { price_rule_uuid: next.json().price_rule_uuid, status: "scheduled", valid_to: null },
      { price_rule_uuid: rule.price_rule_uuid, status: "active", valid_to: later },
    ]);

    // A global rule (no organization): only in the global list; status ended once valid_to passed.
    const global = await op("POST", "/v1/operator/price-rules", {
      operation: "op-api-global",
      unit_price_usd: "1",
      valid_from: "2020-01-01T00:00:00Z",
    });
    expect(global.json()).toMatchObject({ organization_uuid: null, status: "active" });
    await op("POST", "/v1/operator/price-rules", {
      operation: "op-api-global",
      unit_price_usd: "2",
      valid_from: "2021-01-01T00:00:00+01:00",
    });
    const globals = (await op("GET", "/v1/operator/price-rules?organization_uuid=global")).json()
      .price_rules as { organization_uuid: string | null; operation: string; status: string }[];
    expect(globals.every((r) => r.organization_uuid === null)).toBe(true);
    expect(globals.filter((r) => r.operation === "op-api-global").map((r) => r.status)).toEqual([
      "active",
      "ended",
    ]);
    const everything = (await op("GET", "/v1/operator/price-rules")).json().price_rules;
    expect(everything.length).toBe(
      (await t.p.database.db.select({ n: sql<number>`count(*)::int` }).from(priceRules))[0]?.n,
    );

    // Audited: the operator, the organization (none for a global rule), and the rule it ended.
    const [audit] = await t.p.database.db
      .select()
      .from(auditLog)
      .where(
        and(eq(auditLog.action, "price_rule.created"), eq(auditLog.targetId, next.json().price_rule_uuid)),
      );
    expect(audit).toMatchObject({
      organizationUuid: t.f.acmeId,
      source: "cli",
      targetType: "price_rule",
      after: {
        unit_price_usd: "0.02",
        operation: "op-api-test",
        ended_price_rule_uuids: [rule.price_rule_uuid],
      },
    });
    expect(await lastAudit("price_rule.created")).toMatchObject({ organizationUuid: null });
  });

  it("takes an organization's uuid in any case, on every operator route naming one", async () => {
    const upper = t.f.acmeId.toUpperCase();
    expect(upper).not.toBe(t.f.acmeId);
    // A price for the organization named in upper case is the organization's (it prices its events).
    const created = await op("POST", "/v1/operator/price-rules", {
      organization_uuid: upper,
      operation: "op-api-case",
      unit_price_usd: "0.5",
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().organization_uuid).toBe(t.f.acmeId);
    const list = (uuid: string) => op("GET", `/v1/operator/price-rules?organization_uuid=${uuid}`);
    const lower = (await list(t.f.acmeId)).json();
    expect(lower.price_rules.map((r: { price_rule_uuid: string }) => r.price_rule_uuid)).toContain(
      created.json().price_rule_uuid,
    );
    expect((await list(upper)).json()).toEqual(lower);
    // The routes naming it in the path, as the CLI does.
    for (const rest of ["", "/awaiting-pricing", "/billing-cycles", "/payments", "/workspace-groups"]) {
      const a = await op("GET", `/v1/operator/organizations/${t.f.acmeId}${rest}`);
      const b = await op("GET", `/v1/operator/organizations/${upper}${rest}`);
      expect([b.statusCode, b.json()], rest).toEqual([200, a.json()]);
    }
    // An ingestion key for it.
    const key = await op("POST", "/v1/operator/ingest-keys", { name: "case", organization: upper });
    expect(key.statusCode, key.body).toBe(200);
    expect(key.json().organization_uuid).toBe(t.f.acmeId);
    await op("POST", `/v1/operator/ingest-keys/${key.json().ingest_key_uuid}/revoke`);
  });

  it("refuses a bad price rule in its own words and writes nothing", async () => {
    const url = "/v1/operator/price-rules";
    const cases: [unknown, number, string][] = [
      [{}, 400, "body unit_price_usd: unit_price_usd is required."],
      [{ unit_price_usd: 0.5 }, 400, "unit_price_usd must be a USD decimal string"],
      [{ unit_price_usd: "-1" }, 400, "unit_price_usd cannot be negative."],
      [{ unit_price_usd: "1e3" }, 400, "at most 6 decimals"],
      [{ unit_price_usd: "0.0000001" }, 400, "at most 6 decimals"],
      [{ unit_price_usd: "99999999999999999999" }, 400, "unit_price_usd must be a USD decimal string"],
      [{ unit_price_usd: "1000000.01" }, 400, "at most 1,000,000 USD"],
      [{ unit_price_usd: "1", valid_from: "0001-01-01T00:00:00Z" }, 400, "from 2000-01-01 to 2100-01-01"],
      [{ unit_price_usd: "1", valid_from: "9999-12-31T23:59:59Z" }, 400, "from 2000-01-01 to 2100-01-01"],
      [{ unit_price_usd: "1", valid_from: "+275760-09-13T00:00:00.000Z" }, 400, "ISO 8601"],
      [{ unit_price_usd: "1", valid_from: "yesterday" }, 400, "ISO 8601"],
      [{ unit_price_usd: "1", operation: "a\u0000b" }, 400, "operation"],
      [{ unit_price_usd: "1", operation: "x\uD800" }, 400, "operation"],
      [{ unit_price_usd: "1", operation: "x".repeat(101) }, 400, "at most 100 characters"],
      [{ unit_price_usd: "1", rule_metric: "tokens" }, 400, 'rule_metric must be "eval", "prompt" or null.'],
      [{ unit_price_usd: "1", organization_uuid: "acme-ai" }, 400, "organization_uuid must be"],
      [{ unit_price_usd: "1", extra: 1 }, 400, "Unknown body field(s): extra."],
      [{ unit_price_usd: "1", organization_uuid: crypto.randomUUID() }, 404, "No organization"],
    ];
    for (const [body, status, message] of cases) {
      const err = await refused(status, () => op("POST", url, body));
      expect(err.message, JSON.stringify(body)).toContain(message);
    }
    await refused(400, () => op("GET", `${url}?organization_uuid=acme`));
  });

  it("grants and revokes operators: the running server recognizes the change at once, audited", async () => {
    const ingestKeys = "/v1/operator/ingest-keys";
    expect((await t.f.call("newcomer", "GET", ingestKeys)).statusCode).toBe(403);
    const granted = await op("POST", "/v1/operator/operators", { email: " Newcomer@Acme.test " });
    expect(granted.statusCode, granted.body).toBe(200);
    expect(granted.json()).toMatchObject({ email: "newcomer@acme.test" });
    // The token minted before the grant is the operator's own bearer token now.
    expect((await t.f.call("newcomer", "GET", ingestKeys)).statusCode).toBe(200);
    const list = (await op("GET", "/v1/operator/operators")).json();
    expect(list.operators).toContainEqual(granted.json());

    // An operator's own token may grant and revoke, and is the audited actor.
    const byOperator = await t.f.call("newcomer", "POST", "/v1/operator/operators", {
      email: "member@acme.test",
    });
    expect(byOperator.statusCode, byOperator.body).toBe(200);
    expect(await lastAudit("operator.granted")).toMatchObject({
      actorEmail: "newcomer@acme.test",
      source: "console",
      organizationUuid: null,
      targetType: "user",
      targetLabel: "member@acme.test",
      before: { operator: false },
      after: { operator: true },
    });
    const revoked = await t.f.call("newcomer", "DELETE", "/v1/operator/operators/member@acme.test");
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect((await t.f.call("member", "GET", ingestKeys)).statusCode).toBe(403);

    // An operator cannot revoke the last operator who can act (here themself): 409, nothing
    // written. A banned operator cannot act, so does not count.
    const last =
      "newcomer@acme.test is the last provider operator; grant the role to another user before revoking it (the command line can always grant it).";
    const revokeSelf = () => t.f.call("newcomer", "DELETE", "/v1/operator/operators/newcomer@acme.test");
    expect(await refused(409, revokeSelf)).toEqual({ code: "conflict", message: last });
    await t.f.call("newcomer", "POST", "/v1/operator/operators", { email: "member@acme.test" });
    const ban = (banned: boolean) =>
      t.p.database.db.update(user).set({ banned }).where(eq(user.email, "member@acme.test"));
    await ban(true);
    expect((await refused(409, revokeSelf)).message).toBe(last);
    await ban(false);
    // With another operator who can act, the operator may step down, and that one may not.
    expect((await revokeSelf()).statusCode).toBe(200);
    const lastToo = await refused(409, () =>
      t.f.call("member", "DELETE", "/v1/operator/operators/member@acme.test"),
    );
    expect(lastToo.message).toContain("member@acme.test is the last provider operator");
    await t.f.call("member", "POST", "/v1/operator/operators", { email: "newcomer@acme.test" });
    // The command line (the local credential) may revoke the last one: it can always grant again.
    expect((await op("DELETE", "/v1/operator/operators/member@acme.test")).statusCode).toBe(200);

    await op("DELETE", "/v1/operator/operators/NEWCOMER@acme.test");
    expect((await t.f.call("newcomer", "GET", ingestKeys)).statusCode).toBe(403);
    expect(await lastAudit("operator.revoked")).toMatchObject({
      actorUserId: null,
      source: "cli",
      targetLabel: "newcomer@acme.test",
      after: { operator: false },
    });
    expect((await op("GET", "/v1/operator/operators")).json().operators).toEqual([]);
    const [role] = await t.p.database.db
      .select({ role: user.role })
      .from(user)
      .where(eq(user.email, "newcomer@acme.test"));
    expect(role?.role).toBe("user");

    expect((await refused(404, () => op("DELETE", "/v1/operator/operators/nobody@acme.test"))).message).toBe(
      "No user with email nobody@acme.test.",
    );
    await refused(404, () => op("POST", "/v1/operator/operators", { email: "nobody@acme.test" }));
    await refused(400, () => op("POST", "/v1/operator/operators", { email: "not-an-email" }));
    await refused(400, () => op("POST", "/v1/operator/operators", { email: ["member@acme.test"] }));
    await refused(400, () => op("POST", "/v1/operator/operators", {}));
    await refused(400, () => op("DELETE", "/v1/operator/operators/%00"));
  });

  it("restores a workspace with the local operator credential, as the CLI does", async () => {
    const created = await t.f.call("admin", "POST", "/v1/workspaces/", {
      name: "Operator Comeback",
      organization_uuid: t.f.acmeId,
    });
    const id = created.json().workspace_uuid as string;
    await t.f.call("admin", "DELETE", `/v1/workspaces/${id}`);
    const restored = await op("POST", `/v1/operator/workspaces/${id}/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json()).toMatchObject({
      workspace_uuid: id,
      deleted_at: null,
      organization_name: "Acme AI",
    });
    const [row] = await t.p.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, id), eq(auditLog.action, "workspace.restored")));
    expect(row).toMatchObject({ source: "cli", actorUserId: null, organizationUuid: t.f.acmeId });
    expect((await refused(409, () => op("POST", `/v1/operator/workspaces/${id}/restore`))).code).toBe(
      "not_deleted",
    );
  });

  it("purges old audit entries on request, and records the purge", async () => {
    const db = t.p.database.db;
    await db.execute(sql`
      insert into audit_log (at, organization_uuid, source, action, target_type, target_id)
      values (now() - interval '500 days', ${t.f.acmeId}, 'cli', 'workspace.created', 'workspace', 'op-old')`);
    const res = await op("POST", "/v1/operator/audit-log/purge");
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ purged: 1, retention_days: 400 });
    const left = await db.select().from(auditLog).where(eq(auditLog.targetId, "op-old"));
    expect(left).toEqual([]);
    expect(await lastAudit("audit_log.purged")).toMatchObject({
      organizationUuid: null,
      source: "cli",
      targetType: "audit_log",
      after: { retention_days: 400, purged: 1 },
    });
    expect((await op("POST", "/v1/operator/audit-log/purge")).json()).toEqual({
      purged: 0,
      retention_days: 400,
    });
    await refused(400, () => op("POST", "/v1/operator/audit-log/purge", { days: 1 }));
    const entries = await db.select({ action: auditLog.action }).from(auditLog).orderBy(asc(auditLog.id));
    expect(entries.filter((e) => e.action === "audit_log.purged")).toHaveLength(2);
  });
});
