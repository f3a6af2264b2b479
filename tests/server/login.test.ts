import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginFailure } from "../../server/db/schema";
import { LOCKOUT } from "../../server/identity/login/limits";
import { Browser, countEmails, emailToken, listen, totp } from "./fe-browser";
import { backends, PASSWORD, startProduct, type TestProduct } from "./harness";

const code = (r: { ok: boolean; error?: { error_code: string } }) => (r.ok ? "ok" : r.error?.error_code);
/** The code of the next 30-second step: a code is accepted once, so a second sign-in needs it. */
const nextTotp = (secret: string) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + 30_000,
  });
/** An identity client call the PropelAuth client has no function for (or drops the answer of). */
const fePost = (b: Browser, path: string, body: unknown) =>
  b.fetch(`${b.origin}/api/fe/v3${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": "-.-" },
    body: JSON.stringify(body),
  });

describe.each(backends())("sign-in calls on $name", (backend) => {
  let p: TestProduct;
  let origin: string;
  let ipSeq = 10;
  const browser = () => new Browser(origin, `203.0.113.${ipSeq++}`);

  beforeAll(async () => {
    // Each Browser gives its address in X-Forwarded-For, through the test's loopback "proxy".
    p = await startProduct(backend, { TRUST_PROXY: "loopback" });
    origin = await listen(p);
  });
  afterAll(async () => p?.dispose());

  it("signs up, confirms, signs in, enables MFA, needs TOTP next time, backup code works once", async () => {
    const b = browser();
    const email = "flow@new.test";
    const pw = "flow-password-1";
    expect(await b.api((c) => c.fetchLoginState())).toMatchObject({ data: { login_state: "LoginRequired" } });
    const signup = await b.api((c) => c.signup({ email, password: pw, first_name: "Flo", last_name: "W" }));
    expect(signup.ok).toBe(true);
    expect(signup.data).toMatchObject({ login_state: "ConfirmEmailRequired", user_id: expect.any(String) });
    // No session before the email is confirmed.
    expect((await b.refresh()).status).toBe(401);
    expect((await b.api((c) => c.fetchLoginState())).data?.login_state).toBe("ConfirmEmailRequired");
    // Asking again at once is refused; the client's resend knows rate_limit_exceeded.
    expect(code(await b.api((c) => c.resendEmailConfirmation()))).toBe("rate_limit_exceeded");
    // Signing in before confirming keeps the browser in ConfirmEmailRequired.
    const early = await b.api((c) => c.emailPasswordLogin({ email, password: pw }));
    expect(early.data).toEqual({ login_state: "ConfirmEmailRequired" });

    const token = await emailToken(p, email, "confirm_email");
    const confirm = await b.fetch(`${origin}/confirm_email?token=${encodeURIComponent(token)}`);
    expect(confirm.status).toBe(303);
    expect((await b.api((c) => c.fetchLoginState())).data?.login_state).toBe("Finished");
    const me = await b.refresh();
    expect(me.body.user).toMatchObject({ email, email_confirmed: true, first_name: "Flo" });
    expect(code(await b.api((c) => c.resendEmailConfirmation()))).toBe("email_already_confirmed");

    // Enable MFA through the account calls.
    const status = await b.api((c) => c.fetchMfaStatusWithNewSecret());
    expect(status.data).toMatchObject({ type: "Disabled", mfa_enabled: false });
    const { new_secret, new_qr } = status.data as { new_secret: string; new_qr: string };
    expect(new_qr.startsWith("data:image/png;base64,")).toBe(true);
    expect(code(await b.api((c) => c.enableMfa({ code: "000000" })))).toBe("invalid_request_fields");
    // Turning MFA on hands over the backup codes once; the status call lists none, only the count.
    const turnedOn = await fePost(b, "/mfa_enable", { code: totp(new_secret) });
    expect(turnedOn.status).toBe(200);
    const backups = ((await turnedOn.json()) as { backup_codes: string[] }).backup_codes;
    expect(backups).toHaveLength(10);
    expect(code(await b.api((c) => c.enableMfa({ code: totp(new_secret) })))).toBe("action_already_complete");
    const enabled = await b.api((c) => c.fetchMfaStatusWithNewSecret());
    expect(enabled.data).toEqual({
      type: "Enabled",
      mfa_enabled: true,
      backup_codes: [],
      backup_codes_remaining: 10,
    });
    const refreshed = await b.refresh();
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.user?.mfa_enabled).toBe(true);

    // Sign out, then the password alone is not enough.
    await b.fetch(`${origin}/api/v1/logout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    expect((await b.refresh()).status).toBe(401);
    const login = await b.api((c) => c.emailPasswordLogin({ email, password: pw }));
    expect(login.data).toEqual({ login_state: "TwoFactorRequired" });
    expect((await b.refresh()).status).toBe(401);
    expect((await b.api((c) => c.fetchLoginState())).data?.login_state).toBe("TwoFactorRequired");
    const wrong = await b.api((c) => c.verifyMfaForLogin({ code: "123456" }));
    expect(wrong.error).toMatchObject({
      error_code: "invalid_request_fields",
      field_errors: { code: expect.any(String) },
    });
    const ok = await b.api((c) => c.verifyMfaForLogin({ code: nextTotp(new_secret) }));
    expect(ok.data).toEqual({ login_state: "Finished" });
    expect((await b.refresh()).status).toBe(200);

    // A backup code signs in once.
    await b.fetch(`${origin}/api/v1/logout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    await b.api((c) => c.emailPasswordLogin({ email, password: pw }));
    expect(code(await b.api((c) => c.verifyMfaBackupCodeForLogin({ code: "nope-nope" })))).toBe(
      "incorrect_mfa_code",
    );
    expect(code(await b.api((c) => c.verifyMfaBackupCodeForLogin({ code: backups[0]! })))).toBe("ok");
    expect((await b.refresh()).status).toBe(200);
    await b.fetch(`${origin}/api/v1/logout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    await b.api((c) => c.emailPasswordLogin({ email, password: pw }));
    expect(code(await b.api((c) => c.verifyMfaBackupCodeForLogin({ code: backups[0]! })))).toBe(
      "incorrect_mfa_code",
    );
    expect(code(await b.api((c) => c.verifyMfaBackupCodeForLogin({ code: backups[1]! })))).toBe("ok");
    const left = await b.api((c) => c.fetchMfaStatusWithNewSecret());
    expect(left.data).toMatchObject({ backup_codes: [], backup_codes_remaining: 8 });
  });

  it("accepts a TOTP code once: a replayed code and the loser of two racing sign-ins are refused", async () => {
    const email = "replay@new.test";
    const pw = "replay-password-1";
    const b = browser();
    expect((await b.api((c) => c.signup({ email, password: pw }))).ok).toBe(true);
    const token = await emailToken(p, email, "confirm_email");
    await b.fetch(`${origin}/confirm_email?token=${encodeURIComponent(token)}`);
    const { new_secret } = (await b.api((c) => c.fetchMfaStatusWithNewSecret())).data as {
      new_secret: string;
    };
    const used = totp(new_secret);
    expect(code(await b.api((c) => c.enableMfa({ code: used })))).toBe("ok");

    // The code that turned MFA on does not sign in a second time.
    const replay = browser();
    expect((await replay.api((c) => c.emailPasswordLogin({ email, password: pw }))).data).toEqual({
      login_state: "TwoFactorRequired",
    });
    const again = await replay.api((c) => c.verifyMfaForLogin({ code: used }));
    expect(again.error).toMatchObject({
      error_code: "invalid_request_fields",
      field_errors: { code: expect.stringContaining("already used") },
    });
    expect((await replay.refresh()).status).toBe(401);

    // Two sign-ins send the same fresh code at the same moment: exactly one gets a session.
    const racers = [browser(), browser()];
    for (const r of racers)
      expect((await r.api((c) => c.emailPasswordLogin({ email, password: pw }))).data).toEqual({
        login_state: "TwoFactorRequired",
      });
    const fresh = nextTotp(new_secret);
    const answers = await Promise.all(racers.map((r) => fePost(r, "/verify", { code: fresh })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect((await Promise.all(racers.map(async (r) => (await r.refresh()).status))).sort()).toEqual([
      200, 401,
    ]);
    // And the code stays spent for the first browser too.
    expect(code(await replay.api((c) => c.verifyMfaForLogin({ code: fresh })))).toBe(
      "invalid_request_fields",
    );
    expect((await replay.refresh()).status).toBe(401);
  });

  it("answers invalid_mfa_cookie without a challenge and locks MFA after repeated wrong codes", async () => {
    const b = browser();
    expect(code(await b.api((c) => c.verifyMfaForLogin({ code: "123456" })))).toBe("invalid_mfa_cookie");
    expect(code(await b.api((c) => c.verifyMfaBackupCodeForLogin({ code: "x" })))).toBe("invalid_mfa_cookie");
    // admin@acme.test gets MFA, then 10 wrong codes over two challenges lock the second factor.
    const a = browser();
    await a.api((c) => c.emailPasswordLogin({ email: "admin@acme.test", password: PASSWORD }));
    const s = (await a.api((c) => c.fetchMfaStatusWithNewSecret())).data as { new_secret: string };
    await a.api((c) => c.enableMfa({ code: totp(s.new_secret) }));
    const attacker = browser();
    const seen: string[] = [];
    for (let round = 0; round < 3; round++) {
      await attacker.api((c) => c.emailPasswordLogin({ email: "admin@acme.test", password: PASSWORD }));
      for (let i = 0; i < 6; i++)
        seen.push(String(code(await attacker.api((c) => c.verifyMfaForLogin({ code: "000001" })))));
    }
    expect(seen.slice(0, 5)).toEqual(Array(5).fill("invalid_request_fields"));
    expect(seen[5]).toBe("invalid_mfa_cookie");
    expect(seen.at(-1)).toBe("account_mfa_locked");
    // Even the right code is refused while locked.
    expect(code(await attacker.api((c) => c.verifyMfaForLogin({ code: totp(s.new_secret) })))).toBe(
      "account_mfa_locked",
    );
  });

  it("refuses wrong passwords, locks the email after repeated failures, and clears on success", async () => {
    const b = browser();
    const bad = await b.api((c) =>
      c.emailPasswordLogin({ email: "member@acme.test", password: "wrong-one" }),
    );
    // The client's /login maps refused credentials from user_not_found ("invalidCredentials").
    expect(bad.error).toMatchObject({
      error_code: "user_not_found",
      user_facing_error: "Incorrect email or password.",
    });
    expect(
      code(await b.api((c) => c.emailPasswordLogin({ email: "member@acme.test", password: PASSWORD }))),
    ).toBe("ok");
    // A success cleared the count: 9 more failures still don't lock.
    const c2 = browser();
    for (let i = 0; i < LOCKOUT.failures - 1; i++)
      await c2.api((c) => c.emailPasswordLogin({ email: "member@acme.test", password: `bad-${i}` }));
    expect(
      code(await c2.api((c) => c.emailPasswordLogin({ email: "member@acme.test", password: PASSWORD }))),
    ).toBe("ok");
    for (let i = 0; i < LOCKOUT.failures; i++)
      await c2.api((c) => c.emailPasswordLogin({ email: "member@acme.test", password: `bad-${i}` }));
    const locked = await c2.api((c) =>
      c.emailPasswordLogin({ email: "member@acme.test", password: PASSWORD }),
    );
    expect(locked.error).toMatchObject({ error_code: "account_locked" });
    // Unknown emails are counted the same way, so lock-out does not reveal who has an account.
    for (let i = 0; i < LOCKOUT.failures; i++)
      await c2.api((c) => c.emailPasswordLogin({ email: "ghost@nowhere.test", password: `bad-${i}` }));
    expect(
      code(await c2.api((c) => c.emailPasswordLogin({ email: "ghost@nowhere.test", password: "x" }))),
    ).toBe("account_locked");
    await p.database.db.delete(loginFailure);
  });

  it("answers account_disabled for a banned user with the right password only", async () => {
    const b = browser();
    await p.database.db.execute(
      `update identity."user" set banned = true where email = 'newcomer@acme.test'` as never,
    );
    expect(
      code(await b.api((c) => c.emailPasswordLogin({ email: "newcomer@acme.test", password: "wrong-pass" }))),
    ).toBe("user_not_found");
    expect(
      code(await b.api((c) => c.emailPasswordLogin({ email: "newcomer@acme.test", password: PASSWORD }))),
    ).toBe("account_disabled");
    expect(
      code(
        await b.api((c) =>
          c.passwordlessLogin({ email: "newcomer@acme.test", create_if_doesnt_exist: false }),
        ),
      ),
    ).toBe("account_disabled");
    await p.database.db.execute(
      `update identity."user" set banned = false where email = 'newcomer@acme.test'` as never,
    );
  });

  it("rate-limits sign-in per client address with Retry-After", async () => {
    const b = browser();
    let last: Response | undefined;
    for (let i = 0; i < 61; i++)
      last = await b.fetch(`${origin}/api/fe/v3/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": "-.-" },
        body: JSON.stringify({ email: `spray${i}@nowhere.test`, password: "x" }),
      });
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await last?.json()).toMatchObject({ error_code: "rate_limit_exceeded" });
  });

  it("answers sign-up with a registered email exactly as with a new one, and tells the owner", async () => {
    const signup = async (email: string) => {
      const b = browser();
      const res = await b.fetch(`${origin}/api/fe/v3/signup`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": "-.-" },
        body: JSON.stringify({ email, password: "enum-password-1", first_name: "E" }),
      });
      const body = (await res.json()) as Record<string, unknown>;
      return { b, status: res.status, body, cookies: [...b.jar.keys()].sort() };
    };
    const taken = await signup("admin@acme.test");
    const fresh = await signup("enum-new@new.test");
    expect(taken.status).toBe(200);
    expect(taken.status).toBe(fresh.status);
    expect(taken.body).toEqual({ login_state: "ConfirmEmailRequired", user_id: expect.any(String) });
    expect(Object.keys(taken.body)).toEqual(Object.keys(fresh.body));
    expect(String(taken.body.user_id)).toMatch(/^[0-9a-f-]{36}$/);
    expect(taken.cookies).toEqual(fresh.cookies);
    for (const { b } of [taken, fresh]) {
      expect((await b.api((c) => c.fetchLoginState())).data?.login_state).toBe("ConfirmEmailRequired");
      expect(code(await b.api((c) => c.resendEmailConfirmation()))).toBe("rate_limit_exceeded");
    }
    // The owner hears of it; no confirmation link goes to an address that has an account.
    expect(await countEmails(p, "admin@acme.test", "signup_attempt")).toBe(1);
    expect(await countEmails(p, "admin@acme.test", "confirm_email")).toBe(0);
    expect(await countEmails(p, "enum-new@new.test", "confirm_email")).toBe(1);
    // The address still signs in with its own password.
    expect(
      code(
        await browser().api((c) => c.emailPasswordLogin({ email: "admin@acme.test", password: PASSWORD })),
      ),
    ).toBe("ok");
  });

  it("takes as long to refuse a wrong password for an unknown email as for a real account", async () => {
    const b = browser();
    const attempt = async (email: string) => {
      const t0 = performance.now();
      const r = await b.api((c) => c.emailPasswordLogin({ email, password: "not-the-password" }));
      const ms = performance.now() - t0;
      expect(r.error).toMatchObject({
        error_code: "user_not_found",
        user_facing_error: "Incorrect email or password.",
      });
      return ms;
    };
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;
    await attempt("ghost-warm@nowhere.test");
    await attempt("newcomer@acme.test");
    const unknown: number[] = [];
    const known: number[] = [];
    // Interleaved, so a busy moment of the machine weighs on both alike.
    for (let i = 0; i < 5; i++) {
      unknown.push(await attempt(`ghost-${i}@nowhere.test`));
      known.push(await attempt("newcomer@acme.test"));
    }
    const ratio = median(unknown) / median(known);
    expect(ratio, `unknown ${unknown.map(Math.round)} ms, known ${known.map(Math.round)} ms`).toBeGreaterThan(
      0.5,
    );
    expect(ratio).toBeLessThan(2);
  });

  it("resets a forgotten password without revealing accounts, and ends old sessions", async () => {
    const b = browser();
    const known = await b.api((c) => c.sendForgotPasswordEmail({ email: "member@acme.test" }));
    const unknown = await b.api((c) => c.sendForgotPasswordEmail({ email: "nobody@nowhere.test" }));
    expect(known.data).toEqual(unknown.data);
    expect(known.data).toMatchObject({
      message: expect.any(String),
      sniper_links: { gmail: expect.any(String), outlook: expect.any(String), yahoo: expect.any(String) },
    });
    expect(await countEmails(p, "nobody@nowhere.test", "reset_password")).toBe(0);
    const old = browser();
    await old.api((c) => c.emailPasswordLogin({ email: "member@acme.test", password: PASSWORD }));
    expect((await old.refresh()).status).toBe(200);
    const token = await emailToken(p, "member@acme.test", "reset_password");
    const page = await b.fetch(`${origin}/reset_password?token=${encodeURIComponent(token)}`);
    expect(await page.text()).toContain('name="password"');
    const done = await b.fetch(`${origin}/reset_password?token=${encodeURIComponent(token)}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, password: "brand-new-pass" }).toString(),
    });
    expect(done.status).toBe(200);
    expect((await old.refresh()).status).toBe(401);
    expect(
      code(await b.api((c) => c.emailPasswordLogin({ email: "member@acme.test", password: PASSWORD }))),
    ).toBe("user_not_found");
    expect(
      code(
        await b.api((c) => c.emailPasswordLogin({ email: "member@acme.test", password: "brand-new-pass" })),
      ),
    ).toBe("ok");
    // The link works once.
    const again = await b.fetch(`${origin}/reset_password?token=${encodeURIComponent(token)}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, password: "another-pass-1" }).toString(),
    });
    expect(again.status).toBe(400);
    // Three requests per address per window, then rate_limit_exceeded.
    const spam = browser();
    const codes = [];
    for (let i = 0; i < 4; i++)
      codes.push(code(await spam.api((c) => c.sendForgotPasswordEmail({ email: "spam@nowhere.test" }))));
    expect(codes).toEqual(["ok", "ok", "ok", "rate_limit_exceeded"]);
  });

  it("signs in with a magic link and honours rt; MFA users still need their code", async () => {
    const b = browser();
    expect(
      code(
        await b.api((c) =>
          c.passwordlessLogin({ email: "stranger@nowhere.test", create_if_doesnt_exist: false }),
        ),
      ),
    ).toBe("ok");
    expect(await countEmails(p, "stranger@nowhere.test", "magic_link")).toBe(0);
    expect(
      code(
        await b.api((c) => c.passwordlessLogin({ email: "member@acme.test", create_if_doesnt_exist: false })),
      ),
    ).toBe("ok");
    const token = await emailToken(p, "member@acme.test", "magic_link");
    const rt = encodeURIComponent(
      Buffer.from("http://localhost:3000/organization/workspaces").toString("base64"),
    );
    const res = await b.fetch(`${origin}/magic_link?token=${encodeURIComponent(token)}&rt=${rt}`);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("http://localhost:3000/organization/workspaces");
    expect((await b.refresh()).status).toBe(200);
    const reuse = await browser().fetch(`${origin}/magic_link?token=${encodeURIComponent(token)}`);
    expect(reuse.status).toBe(400);

    // admin@acme.test has MFA (enabled above): the link leads to the code step, not a session.
    const m = browser();
    await m.api((c) => c.passwordlessLogin({ email: "admin@acme.test", create_if_doesnt_exist: false }));
    const t2 = await emailToken(p, "admin@acme.test", "magic_link");
    const r2 = await m.fetch(`${origin}/magic_link?token=${encodeURIComponent(t2)}`);
    expect(r2.status).toBe(303);
    expect(r2.headers.get("location")).toMatch(/^\/login\/mfa/);
    expect((await m.refresh()).status).toBe(401);
    expect((await m.api((c) => c.fetchLoginState())).data?.login_state).toBe("TwoFactorRequired");
  });

  it("answers login/check with the hosted sign-in URL", async () => {
    const b = browser();
    const r = await b.fetch(`${origin}/api/fe/v3/login/check?email=a%40acme.test`, {
      headers: { "x-csrf-token": "-.-" },
    });
    expect((await r.json()).login_url).toBe("http://localhost:3001/login?email=a%40acme.test");
    const o = await b.fetch(`${origin}/api/fe/v3/login/check?org_id=nope`, {
      headers: { "x-csrf-token": "-.-" },
    });
    expect((await o.json()).error_code).toBe("org_not_found");
  });

  it("refuses bad bodies with 4xx, never 500", async () => {
    const b = browser();
    const post = (path: string, body: string | undefined, csrf = true) =>
      b.fetch(`${origin}/api/fe/v3${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(csrf ? { "x-csrf-token": "-.-" } : {}) },
        ...(body === undefined ? {} : { body }),
      });
    const cases: [string, string | undefined, string][] = [
      ["/login", undefined, "invalid_request_fields"],
      ["/login", "{", "bad_request"],
      ["/login", JSON.stringify({ email: 5, password: true }), "invalid_request_fields"],
      ["/login", JSON.stringify({ email: "a@b.test", password: "x", extra: 1 }), "invalid_request_fields"],
      ["/login", JSON.stringify({ email: "a@b.test", password: "x".repeat(5000) }), "invalid_request_fields"],
      ["/login", JSON.stringify({ email: "a@b.test", password: "x".repeat(2_000_000) }), "bad_request"],
      ["/signup", JSON.stringify({ email: "a@b.test", password: "short" }), "invalid_request_fields"],
      ["/verify", JSON.stringify({ code: ["1"] }), "invalid_request_fields"],
      ["/forgot_password", JSON.stringify({ email: "not-an-email" }), "invalid_request_fields"],
      [
        "/login_passwordless",
        JSON.stringify({ email: "a@b.test", create_if_doesnt_exist: "yes" }),
        "invalid_request_fields",
      ],
      ["/resend_email_confirmation", undefined, "not_logged_in"],
    ];
    for (const [path, body, expected] of cases) {
      const r = await post(path, body);
      expect(r.status, `${path} ${body?.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect((await r.json()).error_code, path).toBe(expected);
    }
    const noCsrf = await post("/login", JSON.stringify({ email: "a@b.test", password: "x" }), false);
    expect(noCsrf.status).toBe(403);
  });
});
