import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog } from "../../server/db/schema";
import { setOperator } from "../../server/identity/impersonation/operators";
import { createHttpIdentityGateway } from "../../server/platform/identity-gateway-http";
import { AUTH, backends } from "./harness";
import { createRenamedWorkspace, productWithWorkspaces } from "./workspaces-fixture";

describe.each(backends())("workspace validation, audit, restore and OpenAPI on $name", (backend) => {
  const t = productWithWorkspaces(backend);

  async function rejects(
    status: number,
    run: () => Promise<{ statusCode: number; json(): unknown; headers: Record<string, unknown> }>,
  ) {
    const before = await t.f.snapshot();
    const res = await run();
    expect(res.statusCode).toBe(status);
    expect(String(res.headers["content-type"])).toContain("application/json");
    const body = res.json() as { error: { code: string; message: string } };
    expect(body.error.code).toMatch(/^[a-z_]+$/);
    expect(body.error.message.length).toBeGreaterThan(5);
    expect(await t.f.snapshot()).toBe(before);
    return body.error;
  }

  it("answers bad bodies, parameters and queries with a clear 4xx and changes nothing", async () => {
    const red = await t.f.idOf("Red Team");
    const org = t.f.acmeId;
    const badBodies: unknown[] = [
      {},
      { name: "", organization_uuid: org },
      { name: "   ", organization_uuid: org },
      { name: 5, organization_uuid: org },
      { name: "x".repeat(101), organization_uuid: org },
      { name: "Fine" },
      { name: "Fine", organization_uuid: 7 },
      { name: "Fine", organization_uuid: org, extra: 1 },
      [],
      ["Fine"],
      "Fine",
      null,
    ];
    for (const body of badBodies) {
      for (const [method, url] of [
        ["POST", "/v1/workspaces/"],
        ["PUT", `/v1/workspaces/${red}`],
      ] as const) {
        const err = await rejects(400, () =>
          t.f.call("admin", method, url, JSON.stringify(body), { "content-type": "application/json" }),
        );
        expect(err.code, `${method} ${JSON.stringify(body)}`).toMatch(/^invalid_(request|json)$/);
      }
    }
    expect(
      (await rejects(400, () => t.f.call("admin", "POST", "/v1/workspaces/", { name: "Fine" }))).message,
    ).toBe("body organization_uuid: organization_uuid is required.");
    expect(
      (
        await rejects(400, () =>
          t.f.call("admin", "POST", "/v1/workspaces/", { name: "F", organization_uuid: org, x: 1 }),
        )
      ).message,
    ).toBe("Unknown body field(s): x.");
    await rejects(400, () =>
      t.f.call("admin", "POST", "/v1/workspaces/", "{nope", { "content-type": "application/json" }),
    );
    await rejects(400, () => t.f.call("admin", "POST", "/v1/workspaces/"));
    await rejects(400, () =>
      t.f.call("admin", "POST", "/v1/workspaces/", "name=x", { "content-type": "text/plain" }),
    );
    await rejects(413, () =>
      t.f.call("admin", "POST", "/v1/workspaces/", {
        name: "x".repeat(2 * 1024 * 1024),
        organization_uuid: org,
      }),
    );

    for (const url of [
      "/v1/workspaces/not-a-uuid",
      "/v1/workspaces/not-a-uuid/members",
      `/v1/workspaces/${red}x`,
      "/v1/workspaces/?show_deleted=yes",
      "/v1/workspaces/?show_deleted=true&show_deleted=false",
      "/v1/workspaces/?page=2",
    ])
      await rejects(400, () => t.f.call("member", "GET", url));
    await rejects(400, () => t.f.call("admin", "DELETE", "/v1/workspaces/not-a-uuid"));
    await rejects(400, () => t.f.call("admin", "DELETE", `/v1/workspaces/${red}`, { confirm: true }));
    await rejects(400, () => t.f.call("admin", "DELETE", `/v1/workspaces/${red}/members/not-an-email`));

    const members = `/v1/workspaces/${red}/members`;
    await rejects(400, () => t.f.call("admin", "POST", members));
    await rejects(400, () => t.f.call("admin", "POST", `${members}?user_email=nope`));
    await rejects(400, () => t.f.call("admin", "POST", members, { user_email: 3 }));
    await rejects(400, () =>
      t.f.call("admin", "POST", members, { user_email: "member@acme.test", role: "Owner" }),
    );
    await rejects(400, () =>
      t.f.call("admin", "POST", `${members}?user_email=member@acme.test`, {
        user_email: "newcomer@acme.test",
      }),
    );
    await rejects(400, () => t.f.call("admin", "POST", `${members}?user_email=member@acme.test&x=1`));

    await rejects(400, () => t.f.call("member", "PUT", "/v1/workspaces/my-workspace", {}));
    await rejects(400, () =>
      t.f.call("member", "PUT", "/v1/workspaces/my-workspace", { workspace_uuid: "x" }),
    );
    // An empty JSON body on a body-less call is fine.
    const empty = await t.f.call("member", "GET", "/v1/workspaces/", "", {
      "content-type": "application/json",
    });
    expect(empty.statusCode).toBe(200);
  });

  it("writes one audit row per change, with the actor, and none for refused calls", async () => {
    const id = await createRenamedWorkspace(t.f);
    await t.f.call("admin", "POST", `/v1/workspaces/${id}/members?user_email=member@acme.test`);
    await t.f.call("member", "PUT", "/v1/workspaces/my-workspace", { workspace_uuid: id });
    await t.f.call("admin", "DELETE", `/v1/workspaces/${id}/members/member@acme.test`);
    await t.f.call("member", "DELETE", `/v1/workspaces/${id}`);
    await t.f.call("admin", "DELETE", `/v1/workspaces/${id}`);
    // The workspace's own entries, and its members' (whose target is the member, with the workspace in the change).
    const rows = (await t.p.database.db.select().from(auditLog).orderBy(asc(auditLog.id))).filter(
      (r) =>
        r.targetId === id ||
        (r.before as { workspace_uuid?: string } | null)?.workspace_uuid === id ||
        (r.after as { workspace_uuid?: string } | null)?.workspace_uuid === id,
    );
    expect(rows.map((r) => [r.action, r.actorEmail, r.source])).toEqual([
      ["workspace.created", "admin@acme.test", "console"],
      ["workspace.renamed", "admin@acme.test", "api_key"],
      ["member.added", "admin@acme.test", "console"],
      ["workspace.current_selected", "member@acme.test", "console"],
      ["member.removed", "admin@acme.test", "console"],
      ["workspace.deleted", "admin@acme.test", "console"],
    ]);
    expect(rows.every((r) => r.organizationUuid === t.f.acmeId)).toBe(true);
    expect([rows[1]!.before, rows[1]!.after]).toEqual([{ name: "Audited" }, { name: "Audited 2" }]);
    expect(rows[2]).toMatchObject({
      targetLabel: "member@acme.test",
      after: { workspace_uuid: id, role: "Member" },
    });
  });

  it("restores a deleted workspace for provider operators only", async () => {
    const created = await t.f.call("admin", "POST", "/v1/workspaces/", {
      name: "Comeback",
      organization_uuid: t.f.acmeId,
    });
    const id = created.json().workspace_uuid as string;
    await t.f.call("admin", "POST", `/v1/workspaces/${id}/members?user_email=newcomer@acme.test`);
    await t.f.call("admin", "DELETE", `/v1/workspaces/${id}`);
    expect((await t.f.call("newcomer", "GET", "/v1/workspaces/my-workspace")).statusCode).toBe(404);
    const restore = `/v1/operator/workspaces/${id}/restore`;

    await rejects(403, () => t.f.call("admin", "POST", restore));
    await rejects(403, () => t.f.call("other", "POST", restore));
    await rejects(401, () => t.f.call("adminKey", "POST", restore));
    await rejects(401, () => t.f.call("none", "POST", restore));

    await setOperator(t.p.database.db, "other@globex.test", true);
    await rejects(400, () => t.f.call("other", "POST", "/v1/operator/workspaces/nope/restore"));
    await rejects(404, () =>
      t.f.call("other", "POST", `/v1/operator/workspaces/${crypto.randomUUID()}/restore`),
    );
    const ok = await t.f.call("other", "POST", restore);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      workspace_uuid: id,
      name: "Comeback",
      organization_name: "Acme AI",
      deleted_at: null,
    });
    expect((await t.f.call("newcomer", "GET", "/v1/workspaces/my-workspace")).json().name).toBe("Comeback");
    expect((await rejects(409, () => t.f.call("other", "POST", restore))).code).toBe("not_deleted");
    const [row] = await t.p.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, id), eq(auditLog.action, "workspace.restored")));
    expect(row).toMatchObject({
      actorEmail: "other@globex.test",
      source: "console",
      organizationUuid: t.f.acmeId,
    });

    // A live workspace took the name meanwhile: restoring would duplicate it.
    await t.f.call("admin", "DELETE", `/v1/workspaces/${id}`);
    await t.f.call("admin", "POST", "/v1/workspaces/", { name: "COMEBACK", organization_uuid: t.f.acmeId });
    expect((await rejects(409, () => t.f.call("other", "POST", restore))).code).toBe("conflict");

    // The HTTP gateway answers the same question through the identity backend API.
    // (The listening server is closed with the product.)
    const address = await t.p.identity.app.listen({ port: 0, host: "127.0.0.1" });
    const gateway = createHttpIdentityGateway({
      identityUrl: address,
      backendApiKey: t.p.identity.ctx.backendApiKey,
      issuer: AUTH,
    });
    const users = await gateway.listOrganizationUsers(t.f.globexId);
    expect(await gateway.isOperator(users[0]!.user_id)).toBe(true);
    const acme = await gateway.listOrganizationUsers(t.f.acmeId);
    expect(await gateway.isOperator(acme[0]!.user_id)).toBe(false);
    expect(await gateway.isOperator("no-such-user")).toBe(false);
  });

  it("publishes an OpenAPI 3.1 document of every call and a docs page served from this server", async () => {
    const res = await t.f.call("none", "GET", "/v1/openapi.json");
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe("3.1.0");
    const ops = Object.entries(doc.paths as Record<string, object>).flatMap(([path, m]) =>
      Object.keys(m).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(ops.sort()).toEqual(
      [
        "GET /v1/accounts/me",
        "GET /v1/accounts/organization/users",
        "GET /v1/workspaces/my-workspace",
        "PUT /v1/workspaces/my-workspace",
        "GET /v1/workspaces/",
        "POST /v1/workspaces/",
        "GET /v1/workspaces/{workspace_uuid}",
        "PUT /v1/workspaces/{workspace_uuid}",
        "DELETE /v1/workspaces/{workspace_uuid}",
        "GET /v1/workspaces/{workspace_uuid}/members",
        "POST /v1/workspaces/{workspace_uuid}/members",
        "DELETE /v1/workspaces/{workspace_uuid}/members/{user_email}",
        "POST /v1/operator/workspaces/{workspace_uuid}/restore",
        "GET /v1/operator/ingest-keys",
        "POST /v1/operator/ingest-keys",
        "POST /v1/operator/ingest-keys/{ingest_key_uuid}/revoke",
        "GET /v1/operator/organizations",
        "GET /v1/operator/organizations/{organization}",
        "GET /v1/operator/jobs",
        "GET /v1/operator/jobs/{job_uuid}",
        "GET /v1/operator/price-rules",
        "POST /v1/operator/price-rules",
        "GET /v1/operator/organizations/{organization}/awaiting-pricing",
        "GET /v1/operator/operators",
        "POST /v1/operator/operators",
        "DELETE /v1/operator/operators/{email}",
        "GET /v1/operator/organizations/{organization}/billing-cycles",
        "POST /v1/operator/organizations/{organization}/billing-cycles",
        "POST /v1/operator/organizations/{organization}/billing-cycles/close",
        "GET /v1/operator/organizations/{organization}/payments",
        "POST /v1/operator/organizations/{organization}/payments",
        "GET /v1/operator/organizations/{organization}/workspace-groups",
        "PUT /v1/operator/organizations/{organization}/workspace-groups",
        "GET /v1/operator/event-partitions",
        "POST /v1/operator/event-partitions/{month}/archive",
        "POST /v1/operator/event-partitions/{month}/restore",
        "POST /v1/operator/audit-log/purge",
        "POST /v1/operator/organizations/{organization}/usage/import",
        "POST /v1/operator/demo/seed",
        "GET /v1/accounts/organization/billingcycles",
        "POST /v1/usage/events",
        "GET /v1/usage/",
        "GET /v1/usage/records",
        "GET /v1/usage/summary",
        "GET /v1/usage/awaiting-pricing",
        "GET /v1/usage/completeness",
        "GET /v1/usage/series",
        "GET /v1/usage/export.csv",
        "GET /v1/usage/report",
        "GET /v1/usage/explain",
        "GET /v1/usage/allowance",
        "GET /v1/audit-log",
        "GET /v1/budgets",
        "POST /v1/budgets",
        "POST /v1/budgets/simulate",
        "GET /v1/budgets/alerts",
        "GET /v1/budgets/{budget_uuid}",
        "PATCH /v1/budgets/{budget_uuid}",
        "DELETE /v1/budgets/{budget_uuid}",
        "GET /v1/budgets/reservations",
        "POST /v1/budgets/reservations/{eval_run_uuid}/release",
        "GET /v1/eval-runs",
        "POST /v1/eval-runs",
        "POST /v1/eval-runs/{eval_run_uuid}/finish",
        "PUT /v1/eval-runs/{eval_run_uuid}/outcomes",
        "GET /v1/eval-runs/compare",
        "GET /v1/eval-runs/{eval_run_uuid}",
        "GET /v1/webhook-endpoints",
        "POST /v1/webhook-endpoints",
        "GET /v1/webhook-endpoints/{endpoint_uuid}",
        "PATCH /v1/webhook-endpoints/{endpoint_uuid}",
        "DELETE /v1/webhook-endpoints/{endpoint_uuid}",
        "POST /v1/webhook-endpoints/{endpoint_uuid}/rotate-secret",
        "POST /v1/webhook-endpoints/{endpoint_uuid}/test",
        "GET /v1/webhook-endpoints/{endpoint_uuid}/deliveries",
        "POST /v1/webhook-endpoints/{endpoint_uuid}/deliveries/{delivery_uuid}/retry",
        "GET /v1/openapi.json",
        "GET /v1/docs",
      ].sort(),
    );
    expect(doc.components.schemas.Workspace.required).toEqual([
      "workspace_uuid",
      "name",
      "organization_uuid",
      "organization_name",
      "member_count",
      "created_at",
      "deleted_at",
    ]);
    const create = doc.paths["/v1/workspaces/"].post;
    expect(create.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/WorkspaceBody",
    });
    expect(create.responses["201"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/Workspace",
    });
    expect(create.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
    expect(doc.paths["/v1/accounts/organization/users"].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths["/v1/workspaces/"].get.parameters).toEqual([
      expect.objectContaining({ name: "show_deleted", in: "query", required: false }),
    ]);
    expect(JSON.stringify(doc)).not.toContain("$defs");
    // A format says enough: no long patterns beside it.
    expect(doc.paths["/v1/workspaces/{workspace_uuid}"].get.parameters).toEqual([
      { name: "workspace_uuid", in: "path", required: true, schema: { type: "string", format: "uuid" } },
    ]);
    // Errors carry a code of one closed list, each with its one status, documented in Error.
    const code = doc.components.schemas.Error.properties.error.properties.code;
    expect(code.enum).toEqual(
      expect.arrayContaining(["invalid_request", "unauthorized", "database_unavailable"]),
    );
    expect(code.enum).not.toContain("bad_request");
    expect(code.description).toContain("invalid_request (400)");
    expect(create.responses["409"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/Error",
    });
    // The one body that may be left out (the email may come as a query parameter instead).
    expect(doc.paths["/v1/workspaces/{workspace_uuid}/members"].post.requestBody.required).toBe(false);

    const page = await t.f.call("none", "GET", "/v1/docs");
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    // The page loads its script from this server, and the script reads the same document.
    expect(page.body).toContain('src="/v1/docs/static/swagger-ui-bundle.js"');
    expect(page.body).not.toMatch(/(src|href)="https?:/);
    expect((await t.f.call("none", "GET", "/v1/docs/json")).json()).toEqual(doc);
  });
});
