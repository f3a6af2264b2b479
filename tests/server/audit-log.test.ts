import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { AUDIT_ACTION_NAMES } from "../../contract/audit-log";
import { AUDIT_CSV_HEADERS } from "../../contract/audit-log-csv";
import type { AuditEntry } from "../../contract/audit-log-schema";
import { user } from "../../server/db/schema";
import { setOperator } from "../../server/identity/impersonation/operators";
import { purgeAuditLog, scrubSnapshot } from "../../server/platform/audit";
import { backends, signIn } from "./harness";
import { createRenamedWorkspace, productWithWorkspaces } from "./workspaces-fixture";

// The audit trail as an administrator reads it (GET /v1/audit-log): one entry per administrative
// or security action with its actor, source, target and change, none for a refused or rolled-back
// change, never a secret; members are refused; and the table itself takes no UPDATE or DELETE
// except the retention purge.

type Page = { entries: AuditEntry[]; total: number; page: number; page_size: number };

describe.each(backends())("audit log on $name", (backend) => {
  const t = productWithWorkspaces(backend);
  /** Every token the tests were handed: none may ever show in the log. */
  const secrets: string[] = [];

  const fe = async (email: string, path: string, payload: unknown, cookie?: string) =>
    t.p.identity.app.inject({
      method: "POST",
      url: `/api/fe/v3${path}`,
      headers: {
        cookie: cookie ?? (await signIn(t.p, email)),
        "x-csrf-token": "-.-",
        "content-type": "application/json",
      },
      payload: JSON.stringify(payload),
    });
  const idOf = async (email: string) =>
    (await t.p.database.db.select({ id: user.id }).from(user).where(eq(user.email, email)))[0]!.id;

  const read = async (query = "", who: "admin" | "adminKey" | "member" | "memberKey" | "other" = "admin") => {
    const res = await t.f.call(who, "GET", `/v1/audit-log${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Page;
  };
  const latest = async (action: string) => (await read(`?action=${action}&page_size=1`)).entries[0];

  it("records workspace and member changes with actor, source, target and change", async () => {
    // Unchanged (the second rename), refused and failed calls write nothing.
    const id = await createRenamedWorkspace(t.f);
    await t.f.call("member", "DELETE", `/v1/workspaces/${id}`);
    const clash = await t.f.call("admin", "POST", "/v1/workspaces/", {
      name: "audited 2",
      organization_uuid: t.f.acmeId,
    });
    expect(clash.statusCode).toBe(409);
    await t.f.call("admin", "POST", `/v1/workspaces/${id}/members?user_email=member@acme.test`);
    await t.f.call("admin", "DELETE", `/v1/workspaces/${id}/members/member@acme.test`);
    await t.f.call("admin", "DELETE", `/v1/workspaces/${id}`);

    const memberId = await idOf("member@acme.test");
    const adminId = await idOf("admin@acme.test");
    const ofWorkspace = (await read(`?target_id=${id}`)).entries;
    const ofMember = (await read(`?target_id=${memberId}&target_type=workspace_member`)).entries;
    const pick = (e: AuditEntry) => [e.action, e.actor_email, e.source, e.target_label, e.before, e.after];
    expect(ofWorkspace.map(pick)).toEqual([
      [
        "workspace.deleted",
        "admin@acme.test",
        "console",
        "Audited 2",
        { name: "Audited 2", deleted_at: null },
        null,
      ],
      [
        "workspace.renamed",
        "admin@acme.test",
        "api_key",
        "Audited 2",
        { name: "Audited" },
        { name: "Audited 2" },
      ],
      ["workspace.created", "admin@acme.test", "console", "Audited", null, { name: "Audited" }],
    ]);
    expect(ofMember.map(pick)).toEqual([
      ["member.removed", "admin@acme.test", "console", "member@acme.test", { workspace_uuid: id }, null],
      [
        "member.added",
        "admin@acme.test",
        "console",
        "member@acme.test",
        null,
        { workspace_uuid: id, role: "Member" },
      ],
    ]);
    expect(ofWorkspace[0]).toMatchObject({
      actor_user_id: adminId,
      impersonator_user_id: null,
      target_type: "workspace",
    });
  });

  it("records organization roles, invitations, API keys, ingestion keys and impersonation", async () => {
    // The newcomer's role changes (and their tokens stop counting); the member's tokens stay good.
    const newcomerId = await idOf("newcomer@acme.test");
    const admin = await signIn(t.p, "admin@acme.test");

    expect(
      (await fe("", "/change_role", { org_id: t.f.acmeId, user_id: newcomerId, role: "Admin" }, admin))
        .statusCode,
    ).toBe(200);
    expect(await latest("org_user.role_changed")).toMatchObject({
      actor_email: "admin@acme.test",
      source: "console",
      target_type: "org_user",
      target_id: newcomerId,
      target_label: "newcomer@acme.test",
      before: { role: "Member", additional_roles: [] },
      after: { role: "Admin", additional_roles: [] },
    });
    await fe("", "/change_role", { org_id: t.f.acmeId, user_id: newcomerId, role: "Member" }, admin);

    expect(
      (
        await fe(
          "",
          "/invite_user",
          { org_id: t.f.acmeId, email: "invitee@acme.test", role: "Member" },
          admin,
        )
      ).statusCode,
    ).toBe(200);
    expect(await latest("invitation.created")).toMatchObject({
      target_type: "invitation",
      target_id: "invitee@acme.test",
      after: { email: "invitee@acme.test", role: "Member" },
    });
    expect(
      (await fe("", "/revoke_user_invitation", { org_id: t.f.acmeId, email: "invitee@acme.test" }, admin))
        .statusCode,
    ).toBe(200);
    expect(await latest("invitation.revoked")).toMatchObject({
      target_id: "invitee@acme.test",
      before: { role: "Member" },
    });

    // An organization key, created and deleted.
    const created = await fe("", "/api_keys", { org_id: t.f.acmeId, expiration_option: "OneMonth" }, admin);
    expect(created.statusCode).toBe(200);
    const { api_key_id, api_key_token } = created.json() as { api_key_id: string; api_key_token: string };
    secrets.push(api_key_token);
    expect(await latest("api_key.created")).toMatchObject({
      target_type: "api_key",
      target_id: api_key_id,
      after: { kind: "organization" },
    });
    const del = await t.p.identity.app.inject({
      method: "DELETE",
      url: `/api/fe/v3/api_keys/${api_key_id}`,
      headers: { cookie: admin, "x-csrf-token": "-.-" },
    });
    expect(del.statusCode).toBe(200);
    expect(await latest("api_key.deleted")).toMatchObject({
      target_id: api_key_id,
      before: { kind: "organization" },
    });

    // A provider operator's ingestion key for Acme, created and revoked over the operator API.
    await setOperator(t.p.database.db, "other@globex.test", true);
    const ingest = await t.f.call("other", "POST", "/v1/operator/ingest-keys", {
      organization: t.f.acmeId,
      name: "evals",
    });
    expect(ingest.statusCode).toBe(200);
    secrets.push(ingest.json().token);
    const keyId = ingest.json().ingest_key_uuid as string;
    await t.f.call("other", "POST", `/v1/operator/ingest-keys/${keyId}/revoke`);
    const keyRows = (await read(`?target_type=ingest_key&target_id=${keyId}`)).entries;
    expect(keyRows.map((e) => [e.action, e.actor_email, e.target_label])).toEqual([
      ["ingest_key.revoked", "other@globex.test", "evals"],
      ["ingest_key.created", "other@globex.test", "evals"],
    ]);

    // The operator impersonates Acme's newcomer: Acme's log shows it began and ended.
    const operator = await signIn(t.p, "other@globex.test");
    const start = await fe("", "/impersonate", { user_email: "newcomer@acme.test" }, operator);
    expect(start.statusCode).toBe(200);
    const jar = new Map(operator.split("; ").map((c) => [c.slice(0, c.indexOf("=")), c] as const));
    for (const c of [start.headers["set-cookie"] ?? []].flat()) {
      const pair = String(c).split(";")[0]!;
      jar.set(pair.slice(0, pair.indexOf("=")), pair);
    }
    const impersonating = [...jar.values()].join("; ");
    await fe("", "/stop_impersonating", {}, impersonating);
    const imp = (await read(`?target_id=${newcomerId}&target_type=user`)).entries;
    expect(imp.map((e) => [e.action, e.actor_email, e.target_label])).toEqual([
      ["impersonation.ended", "other@globex.test", "newcomer@acme.test"],
      ["impersonation.started", "other@globex.test", "newcomer@acme.test"],
    ]);
    await setOperator(t.p.database.db, "other@globex.test", false);
  });

  it("writes nothing for a change that is refused inside its transaction", async () => {
    const before = (await read()).total;
    // The name check runs inside the rename's transaction, after the organization is locked.
    const red = await t.f.idOf("Red Team");
    const clash = await t.f.call("admin", "PUT", `/v1/workspaces/${red}`, {
      name: "Safety Research",
      organization_uuid: t.f.acmeId,
    });
    expect(clash.statusCode).toBe(409);
    const memberId = await idOf("member@acme.test");
    const refused = await fe("newcomer@acme.test", "/change_role", {
      org_id: t.f.acmeId,
      user_id: memberId,
      role: "Admin",
    });
    expect(refused.statusCode).toBe(403);
    expect((await read()).total).toBe(before);
  });

  it("filters by actor, action, target and days, pages newest first, and refuses members", async () => {
    const all = await read("?page_size=200");
    expect(all.total).toBeGreaterThan(5);
    const ids = all.entries.map((e) => e.audit_entry_id);
    const times = all.entries.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.entries.every((e) => AUDIT_ACTION_NAMES.includes(e.action))).toBe(true);

    const byActor = await read("?actor=ADMIN@acme.test");
    expect(byActor.entries.length).toBeGreaterThan(0);
    expect(byActor.entries.every((e) => e.actor_email === "admin@acme.test")).toBe(true);
    const twoActions = await read("?action=workspace.created&action=workspace.deleted");
    expect(new Set(twoActions.entries.map((e) => e.action))).toEqual(
      new Set(["workspace.created", "workspace.deleted"]),
    );

    const p1 = await read("?page_size=2&page=1");
    const p2 = await read("?page_size=2&page=2");
    expect(p1.entries.map((e) => e.audit_entry_id)).toEqual(ids.slice(0, 2));
    expect(p2.entries.map((e) => e.audit_entry_id)).toEqual(ids.slice(2, 4));
    expect(p1.total).toBe(all.total);

    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect((await read(`?starting_at=${today}&ending_at=${tomorrow}`)).total).toBe(all.total);
    expect((await read(`?ending_at=${today}`)).total).toBe(0);

    for (const bad of [
      "?action=workspace.exploded",
      "?starting_at=2026-02-30",
      "?starting_at=yesterday",
      `?starting_at=${tomorrow}&ending_at=${today}`,
      "?page_size=201",
      "?target_type=planet",
      "?format=xml",
      "?unknown=1",
    ]) {
      const res = await t.f.call("admin", "GET", `/v1/audit-log${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error.code).toBe("invalid_request");
    }

    for (const who of ["member", "memberKey"] as const) {
      const res = await t.f.call(who, "GET", "/v1/audit-log");
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe("forbidden");
    }
    expect((await t.f.call("none", "GET", "/v1/audit-log")).statusCode).toBe(401);
    // Another organization's administrator reads their own log, never Acme's.
    const other = await read("?page_size=200", "other");
    expect(JSON.stringify(other)).not.toContain("acme.test");
  });

  it("shows ids and pages that tell one organization nothing of another's entries", async () => {
    const db = t.p.database.db;
    const create = async (who: "admin" | "other", name: string) => {
      const org = who === "admin" ? t.f.acmeId : t.f.globexId;
      const res = await t.f.call(who, "POST", "/v1/workspaces/", { name, organization_uuid: org });
      expect(res.statusCode, res.body).toBe(201);
    };
    // Both organizations act in turn, so their entries interleave in the table's internal order.
    for (let i = 1; i <= 4; i++) {
      await create("admin", `Acme turn ${i}`);
      await create("other", `Globex turn ${i}`);
    }
    const acme = await read("?page_size=200");
    const globex = await read("?page_size=200", "other");
    const internal = new Map(
      (
        (await db.execute(
          sql`select id::text as id, audit_entry_uuid::text as uuid, organization_uuid as org from audit_log
              where organization_uuid in (${t.f.acmeId}, ${t.f.globexId}) order by id`,
        )) as unknown as { rows: { id: string; uuid: string; org: string }[] }
      ).rows.map((r) => [r.uuid, r]),
    );
    const orgsInOrder = [...internal.values()].map((r) => r.org);
    const turns = orgsInOrder.filter((org, i) => i > 0 && org !== orgsInOrder[i - 1]).length;
    expect(turns).toBeGreaterThanOrEqual(7);

    // Every id shown is a random UUID of one of the reader's own entries, never the internal
    // sequence number (whose gaps would count the other organization's entries).
    const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const [page, org] of [
      [acme, t.f.acmeId],
      [globex, t.f.globexId],
    ] as const) {
      expect(page.entries.length).toBe(page.total);
      for (const e of page.entries) {
        expect(e.audit_entry_id).toMatch(v4);
        expect(internal.get(e.audit_entry_id)?.org).toBe(org);
      }
      const body = JSON.stringify(page);
      for (const r of internal.values()) expect(body).not.toContain(`"${r.id}"`);
    }
    expect(new Set([...acme.entries, ...globex.entries].map((e) => e.audit_entry_id)).size).toBe(
      acme.total + globex.total,
    );

    // Paging returns every entry exactly once, in order, whatever the page size, while the other
    // organization keeps writing: its entries move neither the pages nor the total.
    for (const size of [1, 3, 7]) {
      const seen: string[] = [];
      for (let page = 1; seen.length < acme.total; page++) {
        const got = await read(`?page_size=${size}&page=${page}`);
        expect(got.total).toBe(acme.total);
        expect(got.entries.length).toBeGreaterThan(0);
        seen.push(...got.entries.map((e) => e.audit_entry_id));
        await create("other", `Globex while Acme pages ${size}.${page}`);
      }
      expect(seen).toEqual(acme.entries.map((e) => e.audit_entry_id));
    }
    const globexAfter = await read("?page_size=200", "other");
    expect(globexAfter.total).toBeGreaterThan(globex.total);
    expect(globexAfter.entries.slice(-globex.total)).toEqual(globex.entries);
  });

  it("exports the filtered entries as CSV by Accept or format, with the contract's columns", async () => {
    const json = await read("?action=workspace.created&page_size=200");
    for (const [query, extra] of [
      ["?action=workspace.created", { accept: "text/csv" }],
      ["?action=workspace.created&format=csv", {}],
    ] as const) {
      const res = await t.f.call("admin", "GET", `/v1/audit-log${query}`, undefined, extra);
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^text\/csv/);
      expect(res.headers["content-disposition"]).toMatch(
        /attachment; filename="audit_log_\d{4}-\d{2}-\d{2}\.csv"/,
      );
      const rows = Papa.parse<string[]>(res.body.trim()).data;
      expect(rows[0]).toEqual([...AUDIT_CSV_HEADERS]);
      expect(rows.slice(1).map((r) => [r[0], r[1], r[2]])).toEqual(
        json.entries.map((e) => [e.at, e.action, e.actor_email ?? ""]),
      );
    }
    expect((await t.f.call("member", "GET", "/v1/audit-log?format=csv")).statusCode).toBe(403);
  });

  it("never stores key material, hashes, passwords or tokens", async () => {
    const rows = await t.p.database.db.execute(sql`select * from audit_log`);
    const text = JSON.stringify((rows as unknown as { rows: unknown[] }).rows);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).not.toMatch(/ec[ki]_[A-Za-z0-9_-]{20,}/);
    expect(text).not.toMatch(/\b[0-9a-f]{64}\b/);
    expect(text).not.toMatch(/"[^"]*(token|secret|password|hash)[^"]*":/i);
    expect(text).not.toContain(await signIn(t.p, "admin@acme.test"));
    // The writer's own guard, whatever a caller hands it.
    expect(
      scrubSnapshot({
        name: "ok",
        api_key_token: "eck_x",
        nested: { password: "p", value: `eci_${"a".repeat(43)}`, digest: "a".repeat(64) },
      }),
    ).toEqual({ name: "ok", nested: { value: "[redacted]", digest: "[redacted]" } });
  });

  it("refuses UPDATE, DELETE and TRUNCATE; the purge removes only entries past retention", async () => {
    const db = t.p.database.db;
    /** The database's refusal, under the driver's "Failed query" wrapper. */
    const refusal = async (run: () => Promise<unknown>) => {
      const err = (await run().then(
        () => null,
        (e: unknown) => e,
      )) as { message: string; cause?: { message: string } } | null;
      return err ? `${err.message} ${err.cause?.message ?? ""}` : "accepted";
    };
    for (const statement of [
      sql`update audit_log set action = 'workspace.created'`,
      sql`delete from audit_log`,
      sql`truncate audit_log`,
    ]) {
      expect(await refusal(() => db.execute(statement))).toMatch(/audit_log is append-only/);
    }
    // Setting the purge flag by hand still cannot reach the last day.
    expect(
      await refusal(() =>
        db.transaction(async (tx) => {
          await tx.execute(sql`select set_config('audit_log.purge_before', now()::text, true)`);
          await tx.execute(sql`delete from audit_log`);
        }),
      ),
    ).toMatch(/audit_log is append-only/);

    const count = async () =>
      Number(
        (
          (await db.execute(sql`select count(*)::int as n from audit_log`)) as unknown as {
            rows: { n: number }[];
          }
        ).rows[0]!.n,
      );
    await db.execute(sql`
      insert into audit_log (at, organization_uuid, source, action, target_type, target_id)
      values (now() - interval '401 days', ${t.f.acmeId}, 'cli', 'workspace.created', 'workspace', 'old-1'),
             (now() - interval '500 days', ${t.f.acmeId}, 'cli', 'workspace.created', 'workspace', 'old-2'),
             (now() - interval '399 days', ${t.f.acmeId}, 'cli', 'workspace.created', 'workspace', 'kept')`);
    const before = await count();
    expect(await purgeAuditLog(db, 400)).toBe(2);
    expect(await count()).toBe(before - 2);
    const left = await db.execute(
      sql`select target_id from audit_log where target_id in ('old-1', 'old-2', 'kept')`,
    );
    expect((left as unknown as { rows: unknown[] }).rows).toEqual([{ target_id: "kept" }]);
    expect(await refusal(() => purgeAuditLog(db, 0))).toMatch(/at least 1/);
  });
});

describe("audit log code paths", () => {
  it("has no update or delete of audit rows anywhere in the server, only the purge function", async () => {
    const files = (await readdir("server", { recursive: true })).filter((f) => f.endsWith(".ts"));
    const offenders: string[] = [];
    for (const f of files) {
      const text = await readFile(join("server", f), "utf8");
      if (/\.(update|delete)\(\s*auditLog\b|\b(update|delete\s+from|truncate)\s+"?audit_log\b/i.test(text))
        offenders.push(f);
    }
    expect(offenders).toEqual([]);
  });
});
