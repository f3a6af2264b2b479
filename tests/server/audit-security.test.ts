import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../contract/audit-log-schema";
import { auditLog, user } from "../../server/db/schema";
import { emailToken, totp } from "./fe-browser";
import { AUTH, backends, cookieHeader, PASSWORD, signIn } from "./harness";
import { rowsOf } from "./tenants";
import { productWithWorkspaces } from "./workspaces-fixture";

// The audit entries of identity events outside the organization pages: a user joining through the
// organization's email domain, an organization's deletion, and a user's own security events
// (password, two-factor, sessions), which go to every organization the user belongs to.

type Page = { entries: AuditEntry[]; total: number };

describe.each(backends())("security and membership audit entries on $name", (backend) => {
  const t = productWithWorkspaces(backend);
  const csrf = { "x-csrf-token": "-.-", "content-type": "application/json" };

  const fe = (method: "POST" | "DELETE", path: string, cookie: string, payload: unknown = {}) =>
    t.p.identity.app.inject({
      method,
      url: `/api/fe/v3${path}`,
      headers: { cookie, ...csrf },
      payload: JSON.stringify(payload),
    });
  const read = async (query: string, who: "admin" | "other" = "admin") => {
    const res = await t.f.call(who, "GET", `/v1/audit-log${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as Page).entries;
  };
  const idOf = async (email: string) =>
    (await t.p.database.db.select({ id: user.id }).from(user).where(eq(user.email, email)))[0]?.id ?? "";

  it("writes a user's password, two-factor and session events to each of their organizations", async () => {
    const email = "careful@acme.test";
    const created = await t.p.identity.admin.createUser({ email, password: PASSWORD });
    await t.p.identity.admin.addMember(t.f.acmeId, created.id, "Member");
    await t.p.identity.admin.addMember(t.f.globexId, created.id, "Member");
    let cookie = await signIn(t.p, email);

    const status = await fe("POST", "/security_status", cookie);
    expect(status.statusCode, status.body).toBe(200);
    const enabled = await fe("POST", "/mfa_enable", cookie, { code: totp(status.json().new_secret) });
    expect(enabled.statusCode, enabled.body).toBe(200);
    // Enabling MFA rotates the session.
    cookie = cookieHeader(enabled.headers["set-cookie"]) || cookie;
    expect((await fe("POST", "/mfa_backup_codes", cookie, { password: PASSWORD })).statusCode).toBe(200);
    // A refused change (wrong factor) writes nothing.
    expect((await fe("POST", "/mfa_disable", cookie, { password: "not-the-password" })).statusCode).toBe(401);
    expect((await fe("POST", "/mfa_disable", cookie, { password: PASSWORD })).statusCode).toBe(200);
    const changed = await fe("POST", "/update_password", cookie, {
      password: "a-new-long-password-1",
      current_password: PASSWORD,
    });
    expect(changed.statusCode, changed.body).toBe(200);

    const mine = `?target_type=user&target_id=${created.id}&page_size=100`;
    const expected = [
      ["user.sessions_revoked", { sessions: "others", reason: "password changed" }],
      ["user.password_changed", { how: "changed" }],
      ["user.mfa_disabled", null],
      ["user.backup_codes_regenerated", null],
      ["user.mfa_enabled", null],
    ];
    for (const who of ["admin", "other"] as const) {
      const entries = await read(mine, who);
      expect(entries.map((e) => [e.action, e.after])).toEqual(expected);
      for (const e of entries) {
        expect(e).toMatchObject({ actor_email: email, source: "console", target_label: email });
        expect(e.actor_user_id).toBe(created.id);
      }
    }
  });

  it("writes a password reset and the sessions it ended", async () => {
    const email = "forgetful@acme.test";
    const created = await t.p.identity.admin.createUser({ email, password: PASSWORD });
    await t.p.identity.admin.addMember(t.f.acmeId, created.id, "Member");
    const asked = await t.p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/forgot_password",
      headers: { "x-csrf-token": "-.-", "content-type": "application/json" },
      payload: JSON.stringify({ email }),
    });
    expect(asked.statusCode, asked.body).toBe(200);
    const token = await emailToken(t.p, email, "reset_password");
    const done = await t.p.identity.app.inject({
      method: "POST",
      url: `/reset_password?token=${encodeURIComponent(token)}`,
      headers: { origin: AUTH, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ token, password: "a-new-long-password-2" }).toString(),
    });
    expect(done.statusCode, done.body.slice(0, 300)).toBe(200);
    const entries = await read(`?target_id=${created.id}&page_size=10`);
    expect(entries.map((e) => [e.action, e.after])).toEqual([
      ["user.sessions_revoked", { sessions: "all", reason: "password reset" }],
      ["user.password_changed", { how: "reset" }],
    ]);
  });

  it("writes a join through the organization's email domain", async () => {
    const admin = await signIn(t.p, "admin@acme.test");
    const opened = await fe("POST", "/update_org_metadata", admin, {
      org_id: t.f.acmeId,
      autojoin_by_domain: true,
    });
    expect(opened.statusCode, opened.body).toBe(200);
    const email = "newhire@acme.test";
    await t.p.identity.admin.createUser({ email, password: PASSWORD });
    await t.p.database.db.update(user).set({ emailVerified: true }).where(eq(user.email, email));
    const joined = await fe("POST", `/join_org/${t.f.acmeId}`, await signIn(t.p, email));
    expect(joined.statusCode, joined.body).toBe(200);
    // Joining again changes nothing and writes nothing.
    expect((await fe("POST", `/join_org/${t.f.acmeId}`, await signIn(t.p, email))).statusCode).toBe(200);
    const entries = await read("?action=org_user.joined_by_domain");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor_email: email,
      actor_user_id: await idOf(email),
      target_type: "org_user",
      target_label: email,
      after: { role: "Member", domain: "acme.test" },
    });
  });

  it("writes an organization's deletion, and the entry outlives the organization", async () => {
    const owner = await signIn(t.p, "other@globex.test");
    const made = await fe("POST", "/create_org", owner, {
      name: "Doomed Labs",
      autojoin_by_domain: false,
      restrict_to_domain: false,
    });
    expect(made.statusCode, made.body).toBe(200);
    const orgId = made.json().org_id as string;
    const deleted = await fe("DELETE", "/delete_org", owner, { org_id: orgId });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const rows = await t.p.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationUuid, orgId), eq(auditLog.action, "organization.deleted")));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actorEmail: "other@globex.test",
      targetType: "organization",
      targetId: orgId,
      targetLabel: "Doomed Labs",
      before: { name: "Doomed Labs", members: 1 },
    });
    const [org] = rowsOf<{ n: number }>(
      await t.p.database.db.execute(
        sql`select count(*)::int as n from identity.organization where id = ${orgId}`,
      ),
    );
    expect(org?.n).toBe(0);
  });
});
