import type { createPublicKey } from "node:crypto";
import { eq } from "drizzle-orm";
import type { InjectOptions } from "fastify";
import { jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { emailOutbox } from "../../server/db/schema";
import { encodeReturnTarget } from "../../server/identity/return-target";
import { AUTH, backends, CONSOLE, cookieHeader, PASSWORD, productPerSuite, signIn } from "./harness";

// A hosted form as a browser posts it: from the identity service's own page.
const form = (data: Record<string, string>) => ({
  headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
  payload: new URLSearchParams(data).toString(),
});

describe.each(backends())("identity service on $name", (backend) => {
  const t = productPerSuite(backend);

  const inject = (opts: InjectOptions) => t.p.identity.app.inject(opts);

  it("serves the hosted login page as a real form", async () => {
    const res = await inject({ method: "GET", url: "/login" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/html");
    expect(res.body).toContain('<form method="post"');
    expect(res.body).toContain('name="email"');
    expect(res.body).toContain('type="password"');
  });

  it("refuses a wrong password with a message and keeps the email typed", async () => {
    const res = await inject({
      method: "POST",
      url: "/login",
      ...form({ email: "admin@acme.test", password: "nope-nope" }),
    });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain("Incorrect email or password.");
    expect(res.body).toContain('value="admin@acme.test"');
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("explains missing fields next to each field", async () => {
    const res = await inject({
      method: "POST",
      url: "/login",
      ...form({ email: "not-an-email", password: "" }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain("Please enter a valid email address.");
    expect(res.body).toContain("Please enter your password.");
  });

  it("returns to an allowed rt target after sign-in and ignores foreign ones", async () => {
    const good = encodeURIComponent(encodeReturnTarget(`${CONSOLE}/account/settings?x=1`));
    const ok = await inject({
      method: "POST",
      url: `/login?rt=${good}`,
      ...form({ email: "member@acme.test", password: PASSWORD }),
    });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(`${CONSOLE}/account/settings?x=1`);
    const evil = encodeURIComponent(encodeReturnTarget("https://evil.example/steal"));
    const bad = await inject({
      method: "POST",
      url: `/login?rt=${evil}`,
      ...form({ email: "member@acme.test", password: PASSWORD }),
    });
    expect(bad.headers.location).toBe(`${CONSOLE}/`);
  });

  it("refuses a sign-in form posted from another site", async () => {
    const res = await inject({
      method: "POST",
      url: "/login",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      payload: new URLSearchParams({ email: "admin@acme.test", password: PASSWORD }).toString(),
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("sends every auth response field of spec §3, null when unknown", async () => {
    // The demo's member has no username, picture or legacy id: those fields still come, as null.
    const cookie = await signIn(t.p, "member@acme.test");
    const res = await inject({ method: "GET", url: "/api/v1/refresh_token", headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    for (const field of [
      "access_token",
      "expires_at_seconds",
      "user",
      "impersonator_user",
      "org_id_to_org_member_info",
    ]) {
      expect(body, field).toHaveProperty([field]);
    }
    expect(body.impersonator_user).toBeNull();
    const userFields = [
      "user_id",
      "email",
      "email_confirmed",
      "first_name",
      "last_name",
      "username",
      "picture_url",
      "mfa_enabled",
      "has_password",
      "can_create_orgs",
      "created_at",
      "last_active_at",
      "legacy_user_id",
      "properties",
    ];
    for (const field of userFields) expect(body.user, `user.${field}`).toHaveProperty([field]);
    expect(body.user).toMatchObject({ username: null, picture_url: null, legacy_user_id: null });
    const orgFields = [
      "org_id",
      "org_name",
      "org_metadata",
      "url_safe_org_name",
      "user_role",
      "inherited_user_roles_plus_current_role",
      "user_permissions",
      "org_role_structure",
      "additional_roles",
    ];
    for (const org of Object.values(body.org_id_to_org_member_info)) {
      for (const field of orgFields) expect(org, `org.${field}`).toHaveProperty([field]);
    }
  });

  it("answers refresh_token with 401 JSON when logged out", async () => {
    const res = await inject({ method: "GET", url: "/api/v1/refresh_token" });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error_code: "not_logged_in" });
  });

  it("returns the PropelAuth auth response with an RS256 token carrying iss and the org map", async () => {
    const cookie = await signIn(t.p, "admin@acme.test");
    const res = await inject({ method: "GET", url: "/api/v1/refresh_token", headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toMatchObject({
      email: "admin@acme.test",
      email_confirmed: true,
      has_password: true,
      first_name: "Ada",
      locked: false,
      enabled: true,
      mfa_enabled: false,
    });
    expect(typeof body.user.created_at).toBe("number");
    expect(body.expires_at_seconds - Date.now() / 1000).toBeGreaterThan(600);
    const orgs = Object.values(body.org_id_to_org_member_info) as Record<string, unknown>[];
    expect(orgs).toHaveLength(1);
    expect(orgs[0]).toMatchObject({
      org_name: "Acme AI",
      url_safe_org_name: "acme-ai",
      org_metadata: {},
      org_role_structure: "single_role_in_hierarchy",
      user_role: "Admin",
      inherited_user_roles_plus_current_role: ["Admin", "Member"],
      additional_roles: [],
    });
    expect(orgs[0]!.user_permissions).toContain("propelauth::can_invite");
    expect(orgs[0]!.user_permissions).not.toContain("propelauth::can_delete_org");

    const key = await t.p.identity.gateway.verificationKey();
    const { payload, protectedHeader } = await jwtVerify(body.access_token, key, { issuer: AUTH });
    expect(protectedHeader.alg).toBe("RS256");
    expect(payload).toMatchObject({ user_id: body.user.user_id, email: "admin@acme.test" });
    expect(payload.org_id_to_org_member_info).toEqual(body.org_id_to_org_member_info);
  });

  it("scopes the token to active_org_id and answers 401 for an org the user is not in", async () => {
    const cookie = await signIn(t.p, "member@acme.test");
    const full = (await inject({ method: "GET", url: "/api/v1/refresh_token", headers: { cookie } })).json();
    const orgId = Object.keys(full.org_id_to_org_member_info)[0]!;
    const scoped = await inject({
      method: "GET",
      url: `/api/v1/refresh_token?active_org_id=${orgId}`,
      headers: { cookie },
    });
    const { payload } = await jwtVerify(
      scoped.json().access_token,
      await t.p.identity.gateway.verificationKey(),
    );
    expect((payload.org_member_info as { user_role: string }).user_role).toBe("Member");
    const other = await inject({
      method: "GET",
      url: "/api/v1/refresh_token?active_org_id=not-my-org",
      headers: { cookie },
    });
    expect(other.statusCode).toBe(401);
  });

  it("logs out: returns redirect_to the hosted login and ends the session", async () => {
    const cookie = await signIn(t.p, "member@acme.test");
    // Exactly what @propelauth/javascript sends: JSON content type, no body.
    const out = await inject({
      method: "POST",
      url: "/api/v1/logout",
      headers: { cookie, "content-type": "application/json", origin: CONSOLE },
    });
    expect(out.statusCode).toBe(200);
    const { redirect_to } = out.json();
    expect(redirect_to.startsWith(`${AUTH}/login?rt=`)).toBe(true);
    expect(cookieHeader(out.headers["set-cookie"])).toMatch(/session_token=(;|$)/);
    const after = await inject({ method: "GET", url: "/api/v1/refresh_token", headers: { cookie } });
    expect(after.statusCode).toBe(401);
  });

  it("echoes only allowed origins in CORS, with credentials", async () => {
    const pre = await inject({
      method: "OPTIONS",
      url: "/api/v1/refresh_token",
      headers: {
        origin: CONSOLE,
        "access-control-request-method": "GET",
        "access-control-request-headers": "content-type",
      },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe(CONSOLE);
    expect(pre.headers["access-control-allow-credentials"]).toBe("true");
    // The refresh's preflight is kept two hours: a later visit's session needs one round trip.
    expect(pre.headers["access-control-max-age"]).toBe("7200");
    const foreign = await inject({
      method: "GET",
      url: "/api/v1/refresh_token",
      headers: { origin: "https://evil.example" },
    });
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("signs up a new user who must confirm the email first; the same email again looks like a new one", async () => {
    const data = { first_name: "Sam", last_name: "New", email: "sam@new.test", password: "long-enough-pw" };
    const back = `${CONSOLE}/account/settings`;
    const rt = encodeURIComponent(encodeReturnTarget(back));
    const res = await inject({ method: "POST", url: `/signup?rt=${rt}`, ...form(data) });
    // Like PropelAuth: no session until the emailed link is opened.
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("Confirm your email");
    const pending = cookieHeader(res.headers["set-cookie"]);
    const before = await inject({
      method: "GET",
      url: "/api/v1/refresh_token",
      headers: { cookie: pending },
    });
    expect(before.statusCode).toBe(401);
    const [mail] = await t.p.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, "sam@new.test"));
    const token = decodeURIComponent(mail?.text.match(/token=([^\s&]+)/)?.[1] ?? "");
    // The emailed link carries the page's return target, so confirming ends where sign-up began.
    expect(mail?.text).toContain(`rt=${rt}`);
    const confirmed = await inject({
      method: "GET",
      url: `/confirm_email?token=${encodeURIComponent(token)}&rt=${rt}`,
      headers: { cookie: pending },
    });
    expect(confirmed.statusCode).toBe(303);
    expect(confirmed.headers.location).toBe(back);
    const cookie = cookieHeader(confirmed.headers["set-cookie"]);
    const me = (await inject({ method: "GET", url: "/api/v1/refresh_token", headers: { cookie } })).json();
    expect(me.user).toMatchObject({
      email: "sam@new.test",
      first_name: "Sam",
      last_name: "New",
      email_confirmed: true,
    });
    expect(me.org_id_to_org_member_info).toEqual({});
    // Signing up again with the address answers exactly as for an address nobody has: the same
    // status, page and cookie; the owner is told by email, and no confirmation link is sent.
    const again = await inject({ method: "POST", url: "/signup", ...form(data) });
    const fresh = await inject({
      method: "POST",
      url: "/signup",
      ...form({ ...data, email: "sam2@new.test" }),
    });
    expect(again.statusCode).toBe(200);
    expect(again.statusCode).toBe(fresh.statusCode);
    expect(again.body).not.toContain("already exists");
    expect(again.body).toBe(fresh.body.replaceAll("sam2@new.test", "sam@new.test"));
    const cookieNames = (r: typeof again) =>
      cookieHeader(r.headers["set-cookie"])
        .split("; ")
        .map((c) => c.split("=")[0]);
    expect(cookieNames(again)).toEqual(cookieNames(fresh));
    const mails = await t.p.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, "sam@new.test"));
    expect(mails.map((m) => m.kind).sort()).toEqual(["confirm_email", "signup_attempt"]);
    expect(mails.find((m) => m.kind === "signup_attempt")?.text).toMatch(
      /sign in[\s\S]*\/login[\s\S]*forgot_password/i,
    );
    // "Send the link again" from that page answers as for a new account, and sends nothing.
    const resend = (r: typeof again) =>
      inject({
        method: "POST",
        url: "/confirm_email/resend",
        headers: { ...form({}).headers, cookie: cookieHeader(r.headers["set-cookie"]) },
      });
    const [resentAgain, resentFresh] = [await resend(again), await resend(fresh)];
    expect(resentAgain.statusCode).toBe(resentFresh.statusCode);
    expect(resentAgain.body).toBe(resentFresh.body);
    const short = await inject({
      method: "POST",
      url: "/signup",
      ...form({ ...data, email: "x@y.test", password: "short" }),
    });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain("Password must be at least 8 characters.");
  });

  it("keeps the token signing key across restarts of the same database", async () => {
    const res = await inject({ method: "GET", url: "/readyz" });
    expect(res.json()).toMatchObject({ status: "ready" });
    const pem = (await t.p.identity.gateway.verificationKey()) as ReturnType<typeof createPublicKey>;
    expect(pem.asymmetricKeyType).toBe("rsa");
  });
});
