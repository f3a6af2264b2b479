import { spawnSync } from "node:child_process";
import { eq } from "drizzle-orm";
import type { InjectOptions } from "fastify";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiKey,
  auditLog,
  impersonationAudit,
  impersonationWrite,
  user,
  workspaces,
} from "../../server/db/schema";
import { setOperator } from "../../server/identity/impersonation/operators";
import { serverCommand } from "./cli-process";
import { AUTH, backends, signIn, startProduct, type TestProduct } from "./harness";

/** Applies Set-Cookie headers to a Cookie header, as a browser would (empty value = removed). */
function applyCookies(cookie: string, setCookie: string | string[] | undefined): string {
  const jar = new Map(
    cookie
      .split("; ")
      .filter(Boolean)
      .map((c) => [c.slice(0, c.indexOf("=")), c.slice(c.indexOf("=") + 1)] as const),
  );
  for (const c of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
    const [pair = ""] = c.split(";");
    const i = pair.indexOf("=");
    if (pair.slice(i + 1) === "" || /max-age=0/i.test(c)) jar.delete(pair.slice(0, i));
    else jar.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

describe.each(backends())("operator impersonation on $name", (backend) => {
  let p: TestProduct;
  beforeAll(async () => {
    p = await startProduct(backend);
    expect(await setOperator(p.database.db, "Admin@Acme.test", true)).toBe(true);
  });
  afterAll(async () => p?.dispose());

  const fe = (path: string, cookie: string, payload?: unknown, extra: Partial<InjectOptions> = {}) =>
    p.identity.app.inject({
      method: "POST",
      url: `/api/fe/v3${path}`,
      headers: { cookie, "x-csrf-token": "-.-", "content-type": "application/json" },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
      ...extra,
    });
  const refresh = (cookie: string) =>
    p.identity.app.inject({ method: "GET", url: "/api/v1/refresh_token", headers: { cookie } });
  const idOf = async (email: string) =>
    (await p.database.db.select({ id: user.id }).from(user).where(eq(user.email, email)))[0]!.id;

  it("refuses non-operators and bad requests without starting anything", async () => {
    const member = await signIn(p, "member@acme.test");
    const refused = await fe("/impersonate", member, { user_email: "newcomer@acme.test" });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error_code).toBe("action_forbidden");
    expect(refused.headers["set-cookie"]).toBeUndefined();

    const operator = await signIn(p, "admin@acme.test");
    const cases: [unknown, number, string][] = [
      [{}, 400, "invalid_request_fields"],
      [{ user_email: 5 }, 400, "invalid_request_fields"],
      [{ user_email: "not-an-email" }, 400, "invalid_request_fields"],
      [{ user_email: `${"a".repeat(300)}@x.test` }, 400, "invalid_request_fields"],
      [{ user_email: "member@acme.test", as: "root" }, 400, "invalid_request_fields"],
      [{ user_email: "nobody@acme.test" }, 404, "user_not_found"],
      [{ user_email: "admin@acme.test" }, 400, "bad_request"],
    ];
    for (const [body, status, code] of cases) {
      const res = await fe("/impersonate", operator, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 50)).toBe(status);
      expect(res.json().error_code).toBe(code);
    }
    const noCsrf = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/impersonate",
      headers: { cookie: operator, "content-type": "application/json" },
      payload: JSON.stringify({ user_email: "member@acme.test" }),
    });
    expect(noCsrf.statusCode).toBe(403);
    expect((await fe("/stop_impersonating", operator)).json().error_code).toBe("bad_request");
    expect(await p.database.db.select().from(impersonationAudit)).toHaveLength(0);
  });

  it("starts, shows the impersonator in refresh, the token and /v1/accounts/me, audits, and stops", async () => {
    const operatorCookie = await signIn(p, "admin@acme.test");
    const own = await p.api.app.inject({
      method: "GET",
      url: "/v1/accounts/me",
      headers: { authorization: `Bearer ${(await refresh(operatorCookie)).json().access_token}` },
    });
    expect(own.json()).toMatchObject({
      email: "admin@acme.test",
      is_impersonating: false,
      is_operator: true,
    });
    const start = await fe("/impersonate", operatorCookie, { user_email: "member@acme.test" });
    expect(start.statusCode).toBe(200);
    const memberId = await idOf("member@acme.test");
    const adminId = await idOf("admin@acme.test");
    expect(start.json()).toEqual({ impersonated_user: { user_id: memberId, email: "member@acme.test" } });
    const cookie = applyCookies(operatorCookie, start.headers["set-cookie"]);

    const auth = (await refresh(cookie)).json();
    expect(auth.user.email).toBe("member@acme.test");
    expect(auth.impersonator_user).toEqual({ user_id: adminId, email: "admin@acme.test" });
    const claims = decodeJwt(auth.access_token);
    expect(claims.impersonator_user_id).toBe(adminId);
    expect(claims.login_method).toEqual({ login_method: "impersonation" });

    const me = await p.api.app.inject({
      method: "GET",
      url: "/v1/accounts/me",
      headers: { authorization: `Bearer ${auth.access_token}` },
    });
    expect(me.json()).toMatchObject({
      email: "member@acme.test",
      is_impersonating: true,
      is_admin: false,
      is_operator: false,
    });

    // An impersonation session cannot start another one.
    expect((await fe("/impersonate", cookie, { user_email: "newcomer@acme.test" })).statusCode).toBe(403);

    const [row] = await p.database.db.select().from(impersonationAudit);
    expect(row).toMatchObject({ operatorUserId: adminId, targetUserId: memberId, endedAt: null });
    expect(row!.startedAt).toBeInstanceOf(Date);

    const stop = await fe("/stop_impersonating", cookie);
    expect(stop.statusCode).toBe(200);
    const back = applyCookies(cookie, stop.headers["set-cookie"]);
    const after = (await refresh(back)).json();
    expect(after.user.email).toBe("admin@acme.test");
    expect(after.impersonator_user).toBeNull();
    expect(decodeJwt(after.access_token).impersonator_user_id).toBeUndefined();
    const [closed] = await p.database.db.select().from(impersonationAudit);
    expect(closed!.endedAt).toBeInstanceOf(Date);
    // The impersonation session itself is gone.
    expect((await refresh(cookie.replace(/eval_console\.admin_session=[^;]*(; )?/, ""))).statusCode).toBe(
      401,
    );
  });

  /** The operator's cookie jar swapped to an impersonation session of `email`. */
  const impersonating = async (email: string) => {
    const operatorCookie = await signIn(p, "admin@acme.test");
    const start = await fe("/impersonate", operatorCookie, { user_email: email });
    expect(start.statusCode).toBe(200);
    return applyCookies(operatorCookie, start.headers["set-cookie"]);
  };

  it("refuses to create API keys while impersonating, on the identity client and the hosted page", async () => {
    const memberId = await idOf("member@acme.test");
    const keysOf = async () => p.database.db.select().from(apiKey).where(eq(apiKey.userId, memberId));
    const before = (await keysOf()).length;
    const cookie = await impersonating("member@acme.test");

    const refused = await fe("/api_keys", cookie, { expiration_option: "OneYear" });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      error_code: "action_forbidden",
      user_facing_error: "API keys cannot be created while impersonating a user. Stop impersonating first.",
    });
    const hosted = await p.identity.app.inject({
      method: "POST",
      url: "/account/api_keys",
      headers: { cookie, origin: AUTH, "content-type": "application/x-www-form-urlencoded" },
      payload: "expiration_option=OneYear",
    });
    expect(hosted.statusCode).toBe(403);
    expect(hosted.body).toContain("API keys cannot be created while impersonating a user.");
    expect(hosted.body).not.toMatch(/eck_[A-Za-z0-9_-]{20,}/);
    expect((await keysOf()).length).toBe(before);

    // The member, signed in as themselves, still can.
    const own = await fe("/api_keys", await signIn(p, "member@acme.test"), { expiration_option: "TwoWeeks" });
    expect(own.statusCode).toBe(200);
    expect((await keysOf()).length).toBe(before + 1);
    expect((await fe("/stop_impersonating", cookie)).statusCode).toBe(200);
  });

  it("records every write made while impersonating with the operator's id, in identity and in /v1", async () => {
    const memberId = await idOf("member@acme.test");
    const adminId = await idOf("admin@acme.test");
    await p.database.db.delete(impersonationWrite);
    const cookie = await impersonating("member@acme.test");

    expect((await fe("/update_metadata", cookie, { first_name: "Maxine" })).statusCode).toBe(200);
    const gone = await fe("/api_keys/0123456789abcdef0123456789abcdef", cookie, undefined, {
      method: "DELETE",
    });
    expect(gone.statusCode).toBeGreaterThanOrEqual(400);
    // Reads are not recorded.
    expect((await refresh(cookie)).statusCode).toBe(200);
    const rows = await p.database.db.select().from(impersonationWrite).orderBy(impersonationWrite.at);
    expect(rows.map((r) => ({ ...r, id: undefined, at: undefined }))).toEqual([
      {
        id: undefined,
        at: undefined,
        operatorUserId: adminId,
        targetUserId: memberId,
        method: "POST",
        path: "/api/fe/v3/update_metadata",
        status: 200,
      },
      {
        id: undefined,
        at: undefined,
        operatorUserId: adminId,
        targetUserId: memberId,
        method: "DELETE",
        // The route pattern, never the raw path.
        path: "/api/fe/v3/api_keys/:id",
        status: gone.statusCode,
      },
    ]);

    // The product API: the access token names the operator, and the audit row keeps it.
    const token = (await refresh(cookie)).json().access_token as string;
    const [ws] = await p.database.db
      .select({ id: workspaces.workspaceUuid })
      .from(workspaces)
      .where(eq(workspaces.name, "Safety Research"));
    const chosen = await p.api.app.inject({
      method: "PUT",
      url: "/v1/workspaces/my-workspace",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      payload: JSON.stringify({ workspace_uuid: ws!.id }),
    });
    expect(chosen.statusCode).toBe(200);
    const [audited] = await p.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "workspace.current_selected"));
    expect(audited).toMatchObject({ actorUserId: memberId, impersonatorUserId: adminId, targetId: ws!.id });

    expect((await fe("/stop_impersonating", cookie)).statusCode).toBe(200);
    // The operator's own writes, after stopping, are not impersonated writes.
    const before = (await p.database.db.select().from(impersonationWrite)).length;
    expect(
      (await fe("/update_metadata", await signIn(p, "admin@acme.test"), { first_name: "Ada" })).statusCode,
    ).toBe(200);
    expect((await p.database.db.select().from(impersonationWrite)).length).toBe(before);
  });

  it("stops allowing impersonation once the operator role is revoked", async () => {
    expect(await setOperator(p.database.db, "admin@acme.test", false)).toBe(true);
    const res = await fe("/impersonate", await signIn(p, "admin@acme.test"), {
      user_email: "member@acme.test",
    });
    expect(res.statusCode).toBe(403);
    expect(await setOperator(p.database.db, "nobody@acme.test", true)).toBe(false);
  });
});

describe("operator CLI", () => {
  it("explains its usage without touching a database", () => {
    const r = spawnSync(...serverCommand(["operator", "promote", "x@y.z"]), {
      env: { ...process.env, DATABASE_URL: "" },
      encoding: "utf8",
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("operator grant|revoke <email>");
  });
});
