import { sql } from "drizzle-orm";
import type { InjectOptions } from "fastify";
import { describe, expect, it } from "vitest";
import { createIngestKey } from "../../server/metering/ingestion/ingest-keys";
import { consoleCsp } from "../../server/platform/security-headers";
import { countEmails, emailToken } from "./fe-browser";
import {
  AUTH,
  accessToken,
  backends,
  CONSOLE,
  PASSWORD,
  productPerSuite,
  signIn,
  startProduct,
} from "./harness";

// Hardening: security headers, exact CORS, the CSRF header on cookie calls, cookie flags, sign-in
// and email-send rate limits and lock-out, request size limits and prototype-poisoning bodies.

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe.each(backends())("hardening on $name", (backend) => {
  const t = productPerSuite(backend);

  const api = (o: InjectOptions) => t.p.api.app.inject(o);
  const id = (o: InjectOptions) => t.p.identity.app.inject(o);

  function expectBaseHeaders(h: Record<string, unknown>) {
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["x-frame-options"]).toBe("DENY");
    expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(String(h["content-security-policy"])).toContain("frame-ancestors 'none'");
  }

  it("sends security headers on JSON, the console, the docs page and the hosted pages", async () => {
    const json = await api({ method: "GET", url: "/v1/accounts/me" });
    expectBaseHeaders(json.headers);
    expect(json.headers["content-security-policy"]).toBe("default-src 'none';frame-ancestors 'none'");

    const console = await api({ method: "GET", url: "/organization/workspaces" });
    expect(console.headers["content-type"]).toMatch(/text\/html/);
    expectBaseHeaders(console.headers);
    expect(console.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(console.headers["content-security-policy"]).not.toContain("unsafe-eval");

    // A revalidated page keeps its cached policy: a 304 must not carry the data policy, which
    // browsers would merge into the cached console page and so block its scripts.
    const etag = String(console.headers.etag);
    const revalidated = await api({
      method: "GET",
      url: "/organization/workspaces",
      headers: { "if-none-match": etag },
    });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.headers["content-security-policy"]).toBeUndefined();

    // The docs page runs its own scripts from this origin, nothing inline.
    const docs = await api({ method: "GET", url: "/v1/docs" });
    expect(docs.statusCode).toBe(200);
    expectBaseHeaders(docs.headers);
    expect(String(docs.headers["content-security-policy"]).split(";")).toContain("script-src 'self'");

    const login = await id({ method: "GET", url: "/login" });
    expectBaseHeaders(login.headers);
    expect(login.headers["content-security-policy"]).toContain("script-src 'none'");
    const refresh = await id({ method: "GET", url: "/api/v1/refresh_token" });
    expectBaseHeaders(refresh.headers);
  });

  it("lets the console connect only to its own, the API and the identity origins", async () => {
    const page = await api({ method: "GET", url: "/organization/workspaces" });
    const csp = String(page.headers["content-security-policy"]);
    const connect = csp.split(";").find((d) => d.startsWith("connect-src"));
    expect(connect).toBe(`connect-src 'self' ${CONSOLE} ${AUTH}`);
    // A separate API host and identity host are named by origin (no path), nothing else.
    expect(consoleCsp(["https://api.example.com/base/", "https://id.example.com"])["connect-src"]).toEqual([
      "'self'",
      "https://api.example.com",
      "https://id.example.com",
    ]);
  });

  it("sends HSTS only over HTTPS, believing X-Forwarded-Proto only from a trusted proxy", async () => {
    const plain = await api({ method: "GET", url: "/healthz" });
    expect(plain.headers["strict-transport-security"]).toBeUndefined();
    // No TRUST_PROXY: any client could send the header, so it says nothing.
    for (const inject of [api, id]) {
      const told = await inject({
        method: "GET",
        url: "/healthz",
        headers: { "x-forwarded-proto": "https" },
      });
      expect(told.headers["strict-transport-security"]).toBeUndefined();
    }
    if (backend.name !== "pglite") return; // proxy trust does not depend on the database
    const proxied = await startProduct(backend, { TRUST_PROXY: "1" });
    try {
      for (const app of [proxied.api.app, proxied.identity.app]) {
        const tls = await app.inject({
          method: "GET",
          url: "/healthz",
          headers: { "x-forwarded-proto": "https" },
        });
        expect(tls.headers["strict-transport-security"]).toBe("max-age=31536000; includeSubDomains");
      }
      // With one proxy in front, X-Forwarded-For names the client: each address has its own limit.
      const login = (ip: string) =>
        proxied.identity.app.inject({
          method: "POST",
          url: "/api/fe/v3/login",
          headers: { "x-csrf-token": "-.-", "x-forwarded-for": ip },
          payload: { email: "nobody@nowhere.test", password: "x" },
        });
      let last = 0;
      for (let i = 0; i < 61; i++) last = (await login("192.0.2.40")).statusCode;
      expect(last).toBe(429);
      expect((await login("192.0.2.41")).statusCode).toBe(401);
    } finally {
      await proxied.dispose();
    }
  });

  it("echoes exactly the allowed origin with credentials, and nothing for any other origin", async () => {
    for (const inject of [api, id]) {
      const ok = await inject({
        method: "OPTIONS",
        url: "/api/fe/v3/personal_api_keys",
        headers: { origin: CONSOLE, "access-control-request-method": "GET" },
      });
      expect(ok.headers["access-control-allow-origin"]).toBe(CONSOLE);
      expect(ok.headers["access-control-allow-credentials"]).toBe("true");
      for (const origin of ["https://evil.example", "http://localhost:3000.evil.example", "null", "*"]) {
        const res = await inject({
          method: "OPTIONS",
          url: "/v1/workspaces/",
          headers: { origin, "access-control-request-method": "GET" },
        });
        expect(res.headers["access-control-allow-origin"], origin).toBeUndefined();
        const get = await inject({ method: "GET", url: "/healthz", headers: { origin } });
        expect(get.headers["access-control-allow-origin"], origin).toBeUndefined();
      }
    }
  });

  it("needs the CSRF header on cookie calls and refuses hosted forms posted from another site", async () => {
    const cookie = await signIn(t.p, "admin@acme.test");
    const without = await id({ method: "GET", url: "/api/fe/v3/personal_api_keys", headers: { cookie } });
    expect(without.statusCode).toBe(403);
    expect(without.json()).toMatchObject({ error_code: "action_forbidden" });
    const blank = await id({
      method: "GET",
      url: "/api/fe/v3/personal_api_keys",
      headers: { cookie, "x-csrf-token": " " },
    });
    expect(blank.statusCode).toBe(403);
    const withIt = await id({
      method: "GET",
      url: "/api/fe/v3/personal_api_keys",
      headers: { cookie, "x-csrf-token": "-.-" },
    });
    expect(withIt.statusCode).toBe(200);
    const crossSite = await id({
      method: "POST",
      url: "/account/profile",
      headers: {
        cookie,
        origin: "https://evil.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      payload: form({ first_name: "Mallory" }),
    });
    expect(crossSite.statusCode).toBe(403);
  });

  it("takes hosted form posts only from the identity service's own pages (login CSRF)", async () => {
    const post = (url: string, headers: Record<string, string>, fields: Record<string, string>) =>
      id({
        method: "POST",
        url,
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        payload: form(fields),
      });
    const creds = { email: "admin@acme.test", password: PASSWORD };
    const refusals: Record<string, string>[] = [
      { origin: "null" }, // a sandboxed frame or a data: page
      { origin: "https://evil.example" },
      { origin: CONSOLE }, // even the console's own origin: these forms are the identity service's
      {}, // neither Origin nor Referer
      { referer: "https://evil.example/page" },
      { origin: "null", referer: `${AUTH}/login` },
    ];
    for (const headers of refusals) {
      for (const [url, fields] of [
        ["/login", creds],
        ["/signup", { email: "csrf@new.test", password: "csrf-password-1" }],
        ["/forgot_password", { email: "admin@acme.test" }],
        ["/logout", {}],
      ] as const) {
        const res = await post(url, headers, fields);
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.headers["content-type"]).toMatch(/text\/html/);
        expect(res.body).toContain("This form was sent from another site");
        expect(res.headers["set-cookie"]).toBeUndefined();
      }
    }
    // A form-encoded post to a JSON call of the identity service is refused the same way.
    const logout = await post("/api/v1/logout", { origin: "https://evil.example" }, {});
    expect(logout.statusCode).toBe(403);
    expect(await countEmails(t.p, "csrf@new.test", "confirm_email")).toBe(0);
    // From the service's own page: by Origin, or by Referer when the browser sent no Origin.
    expect((await post("/login", { origin: AUTH }, creds)).statusCode).toBe(303);
    expect((await post("/login", { referer: `${AUTH}/login?rt=x` }, creds)).statusCode).toBe(303);
    // The SAML assertion consumer is posted by the IdP's page, cross-site by design: not refused
    // here (its signature checks decide).
    const acs = await post("/saml/no-such-org/acs", { origin: "https://idp.example" }, { SAMLResponse: "x" });
    expect(acs.body).not.toContain("This form was sent from another site");
  });

  it("refuses identity client calls from an origin that is not the console's, in PropelAuth's shape", async () => {
    const cookie = await signIn(t.p, "admin@acme.test");
    const call = (origin?: string) =>
      id({
        method: "GET",
        url: "/api/fe/v3/personal_api_keys",
        headers: { cookie, "x-csrf-token": "-.-", ...(origin ? { origin } : {}) },
      });
    for (const origin of ["https://evil.example", "null", AUTH]) {
      const res = await call(origin);
      expect(res.statusCode, origin).toBe(403);
      expect(res.json()).toEqual({ error_code: "action_forbidden", user_facing_error: expect.any(String) });
    }
    const login = await id({
      method: "POST",
      url: "/api/fe/v3/login",
      headers: { "x-csrf-token": "-.-", origin: "https://evil.example" },
      payload: { email: "admin@acme.test", password: PASSWORD },
    });
    expect(login.statusCode).toBe(403);
    expect(login.headers["set-cookie"]).toBeUndefined();
    expect((await call(CONSOLE)).statusCode).toBe(200);
    expect((await call()).statusCode).toBe(200);
  });

  it("sets session cookies HttpOnly and SameSite=Lax, and Secure when served over HTTPS", async () => {
    const res = await id({
      method: "POST",
      url: "/login",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
      payload: form({ email: "member@acme.test", password: PASSWORD }),
    });
    const cookies = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) {
      expect(c).toMatch(/; HttpOnly/i);
      expect(c).toMatch(/; SameSite=Lax/i);
      expect(c).not.toMatch(/; Secure/i);
    }
    if (backend.name !== "pglite") return; // cookie flags do not depend on the database
    const tls = await startProduct(backend, {
      PUBLIC_URL: "https://console.example",
      AUTH_PUBLIC_URL: "https://auth.example",
    });
    try {
      const secure = await tls.identity.app.inject({
        method: "POST",
        url: "/login",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: "https://auth.example",
          "x-forwarded-proto": "https",
        },
        payload: form({ email: "member@acme.test", password: PASSWORD }),
      });
      const list = ([] as string[]).concat(secure.headers["set-cookie"] ?? []);
      expect(list.length, secure.body).toBeGreaterThan(0);
      for (const c of list) {
        expect(c).toMatch(/; Secure/i);
        expect(c).toMatch(/; HttpOnly/i);
      }
    } finally {
      await tls.dispose();
    }
  });

  const feLogin = (email: string, password: string, remoteAddress: string) =>
    id({
      method: "POST",
      url: "/api/fe/v3/login",
      headers: { "x-csrf-token": "-.-" },
      remoteAddress,
      payload: { email, password },
    });

  it("holds back the address that guessed wrong 10 times, not the owner signing in from elsewhere", async () => {
    const answers: number[] = [];
    for (let i = 0; i < 10; i++)
      answers.push((await feLogin("newcomer@acme.test", "wrong-password", "192.0.2.10")).statusCode);
    expect(answers.every((s) => s === 401)).toBe(true);
    // The guessing address is refused even with the right password...
    const held = await feLogin("newcomer@acme.test", PASSWORD, "192.0.2.10");
    expect(held.statusCode).toBe(403);
    expect(held.json()).toMatchObject({ error_code: "account_locked" });
    expect(held.json().user_facing_error).toMatch(/from your network/);
    // ...while the owner, from another address, signs in.
    const owner = await feLogin("newcomer@acme.test", PASSWORD, "198.51.100.10");
    expect(owner.statusCode, owner.body).toBe(200);
    expect(owner.json()).toEqual({ login_state: "Finished" });
  });

  it("locks the account after wrong passwords from many addresses and emails a single-use unlock link", async () => {
    const email = "member@acme.test";
    // 5 addresses x 10 wrong passwords: each address alone is only held back.
    for (let a = 0; a < 5; a++)
      for (let i = 0; i < 10; i++)
        expect((await feLogin(email, `wrong-${i}`, `203.0.113.${100 + a}`)).statusCode).toBe(401);
    const locked = await feLogin(email, PASSWORD, "198.51.100.20");
    expect(locked.statusCode).toBe(403);
    expect(locked.json()).toMatchObject({ error_code: "account_locked" });
    expect(await countEmails(t.p, email, "account_unlock")).toBe(1);
    const token = await emailToken(t.p, email, "account_unlock");
    // Only a hash of the token is stored.
    const stored = await t.p.database.db.execute(sql`select identifier from identity.verification`);
    expect(JSON.stringify(stored)).not.toContain(token);

    const page = await id({ method: "GET", url: `/unlock_account?token=${encodeURIComponent(token)}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('action="/unlock_account"');
    // Opening the link alone (a mail scanner) changes nothing.
    expect((await feLogin(email, PASSWORD, "198.51.100.20")).statusCode).toBe(403);
    const unlock = () =>
      id({
        method: "POST",
        url: "/unlock_account",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
        payload: form({ token }),
      });
    const done = await unlock();
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain("Account unlocked");
    expect((await feLogin(email, PASSWORD, "198.51.100.20")).statusCode).toBe(200);
    // Used once; a made-up token does nothing either.
    expect((await unlock()).statusCode).toBe(400);
    const forged = await id({
      method: "POST",
      url: "/unlock_account",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
      payload: form({ token: "x".repeat(43) }),
    });
    expect(forged.statusCode).toBe(400);
  });

  it("rate-limits sign-in per client address with Retry-After, whatever X-Forwarded-For says", async () => {
    let last: Awaited<ReturnType<typeof id>> | undefined;
    // Without TRUST_PROXY the header is the client's own say: a new one each time changes nothing.
    for (let i = 0; i < 61; i++)
      last = await id({
        method: "POST",
        url: "/api/fe/v3/login",
        headers: { "x-csrf-token": "-.-", "x-forwarded-for": `10.9.${i >> 8}.${i & 255}` },
        remoteAddress: "192.0.2.20",
        payload: { email: `spray${i}@nowhere.test`, password: "x" },
      });
    expect(last?.statusCode).toBe(429);
    expect(Number(last?.headers["retry-after"])).toBeGreaterThan(0);
    expect(last?.json()).toMatchObject({ error_code: "rate_limit_exceeded" });
  });

  it("rate-limits email sending per address: three reset emails, then 429 and no fourth email", async () => {
    const answers: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await id({
        method: "POST",
        url: "/api/fe/v3/forgot_password",
        headers: { "x-csrf-token": "-.-" },
        remoteAddress: `192.0.2.${30 + i}`,
        payload: { email: "member@acme.test" },
      });
      answers.push(res.statusCode);
    }
    expect(answers).toEqual([200, 200, 200, 429]);
    expect(await countEmails(t.p, "member@acme.test", "reset_password")).toBe(3);
  });

  it("refuses bodies over the limit with 413 JSON in each service's shape", async () => {
    const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10), organization_uuid: "o" });
    const bearer = `Bearer ${await accessToken(t.p, "admin@acme.test")}`;
    const product = await api({
      method: "POST",
      url: "/v1/workspaces/",
      headers: { "content-type": "application/json", authorization: bearer },
      payload: big,
    });
    expect(product.statusCode).toBe(413);
    expect(product.json()).toEqual({
      error: { code: "payload_too_large", message: "The request body is too large." },
    });
    // Ingestion takes up to 16 MiB, from an ingestion key (anyone else is refused before the body).
    const { token } = await createIngestKey(t.p.database.db, { name: "limits", organizationUuid: null });
    const usage = await api({
      method: "POST",
      url: "/v1/usage/events",
      headers: { "content-type": "application/json", "x-api-key": token },
      payload: `{"events":["${"x".repeat(17 * 1024 * 1024)}"]}`,
    });
    expect(usage.statusCode).toBe(413);
    const identity = await id({
      method: "POST",
      url: "/api/fe/v3/login",
      headers: { "content-type": "application/json", "x-csrf-token": "-.-" },
      payload: big,
    });
    expect(identity.statusCode).toBe(413);
    expect(identity.json()).toMatchObject({
      error_code: expect.any(String),
      user_facing_error: expect.any(String),
    });
  });

  it("refuses JSON bodies that carry prototype keys", async () => {
    const bearer = `Bearer ${await accessToken(t.p, "admin@acme.test")}`;
    for (const payload of ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}']) {
      const res = await api({
        method: "PUT",
        url: "/v1/workspaces/my-workspace",
        headers: { "content-type": "application/json", authorization: bearer },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe("invalid_json");
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    }
    // A value named like one is fine: the body is read and checked like any other.
    const fine = await api({
      method: "PUT",
      url: "/v1/workspaces/my-workspace",
      headers: { "content-type": "application/json", authorization: bearer },
      payload: '{"workspace_uuid":"constructor"}',
    });
    expect(fine.statusCode).toBe(400);
    expect(fine.json().error.code).not.toBe("invalid_json");
    expect(fine.json().error.message).toContain("workspace_uuid");
  });
});
