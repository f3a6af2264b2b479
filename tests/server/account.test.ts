import { eq } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emailOutbox } from "../../server/db/schema";
import { Browser, emailToken, listen, totp } from "./fe-browser";
import { AUTH, backends, PASSWORD, startProduct, type TestProduct } from "./harness";

const code = (r: { ok: boolean; error?: { error_code: string } }) => (r.ok ? "ok" : r.error?.error_code);
/** The code of the next 30-second step (the current one may be spent already). */
const nextTotp = (secret: string) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + 30_000,
  });

describe.each(backends())("account calls on $name", (backend) => {
  let p: TestProduct;
  let origin: string;
  let ipSeq = 10;
  const browser = () => new Browser(origin, `192.0.2.${ipSeq++}`);
  const signedIn = async (email: string, password = PASSWORD) => {
    const b = browser();
    expect(code(await b.api((c) => c.emailPasswordLogin({ email, password })))).toBe("ok");
    return b;
  };

  beforeAll(async () => {
    // Each Browser gives its address in X-Forwarded-For, through the test's loopback "proxy".
    p = await startProduct(backend, { TRUST_PROXY: "loopback" });
    origin = await listen(p);
  });
  afterAll(async () => p?.dispose());
  /** A new account that confirmed its email, signed in, and the MFA secret it is offered. */
  const confirmedWithNewSecret = async (email: string, password: string) => {
    const b = browser();
    await b.api((c) => c.signup({ email, password }));
    await b.fetch(
      `${origin}/confirm_email?token=${encodeURIComponent(await emailToken(p, email, "confirm_email"))}`,
    );
    const { new_secret } = (await b.api((c) => c.fetchMfaStatusWithNewSecret())).data as {
      new_secret: string;
    };
    return { b, new_secret };
  };
  /** An identity client call the PropelAuth client has no function for (or sends no body with). */
  const fePost = (b: Browser, path: string, body: unknown) =>
    b.fetch(`${origin}/api/fe/v3${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": "-.-" },
      body: JSON.stringify(body),
    });

  it("answers not_logged_in to every account call without a session", async () => {
    const b = browser();
    expect(code(await b.api((c) => c.fetchMfaStatusWithNewSecret()))).toBe("not_logged_in");
    expect(code(await b.api((c) => c.enableMfa({ code: "123456" })))).toBe("not_logged_in");
    expect(code(await b.api((c) => c.disableMfa()))).toBe("not_logged_in");
    expect(code(await b.api((c) => c.updateEmail({ new_email: "x@y.test" })))).toBe("not_logged_in");
    expect(code(await b.api((c) => c.updatePassword({ password: "whatever-123" })))).toBe("not_logged_in");
    expect(code(await b.api((c) => c.updateUserMetadata({ first_name: "X" })))).toBe("not_logged_in");
    expect(code(await b.api((c) => c.deleteAccount()))).toBe("not_logged_in");
  });

  it("creates and deletes personal API keys on the hosted account page, refusing an unknown expiry", async () => {
    const b = await signedIn("newcomer@acme.test");
    const post = (path: string, fields: Record<string, string>) =>
      b.fetch(`${origin}${path}`, {
        method: "POST",
        // A form on the hosted page: the browser sends the identity service's public origin.
        headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
        body: new URLSearchParams(fields),
      });
    const created = await post("/account/api_keys", { expiration_option: "TwoWeeks" });
    expect(created.status).toBe(200);
    const page = await created.text();
    expect(page).toContain("Copy it now");
    const token = page.match(/eck_[A-Za-z0-9_-]{20,}/)?.[0];
    expect(token).toBeDefined();
    const listed = await b.api((c) => c.fetchPersonalApiKeys({}));
    const keys = (listed.data as { api_keys: { api_key_id: string; expires_at_seconds: number }[] }).api_keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]!.expires_at_seconds - Date.now() / 1000).toBeGreaterThan(13 * 86400);
    expect(keys[0]!.expires_at_seconds - Date.now() / 1000).toBeLessThan(15 * 86400);

    const refused = await post("/account/api_keys", { expiration_option: "Forever" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("Choose one of the listed expiry options.");
    expect((await b.api((c) => c.fetchPersonalApiKeys({}))).data).toMatchObject({ total_api_keys: 1 });

    const deleted = await post("/account/api_keys/delete", { api_key_id: keys[0]!.api_key_id });
    expect(deleted.status).toBe(200);
    expect((await b.api((c) => c.fetchPersonalApiKeys({}))).data).toMatchObject({ total_api_keys: 0 });
  });

  it("updates the profile and refuses a taken username", async () => {
    const b = await signedIn("member@acme.test");
    expect(
      code(
        await b.api((c) => c.updateUserMetadata({ first_name: "Mia", last_name: "Mem", username: "mia" })),
      ),
    ).toBe("ok");
    expect((await b.refresh()).body.user).toMatchObject({ first_name: "Mia", last_name: "Mem" });
    const other = await signedIn("newcomer@acme.test");
    const taken = await other.api((c) => c.updateUserMetadata({ username: "mia" }));
    expect(taken.error).toMatchObject({
      error_code: "invalid_request_fields",
      field_errors: { username: expect.any(String) },
    });
  });

  it("changes the password with the current one and signs other devices out", async () => {
    const b = await signedIn("newcomer@acme.test");
    const other = await signedIn("newcomer@acme.test");
    expect(
      code(await b.api((c) => c.updatePassword({ password: "new-password-1", current_password: "wrong" }))),
    ).toBe("incorrect_password");
    expect(code(await b.api((c) => c.updatePassword({ password: "new-password-1" })))).toBe(
      "incorrect_password",
    );
    expect(
      code(await b.api((c) => c.updatePassword({ password: "short", current_password: PASSWORD }))),
    ).toBe("invalid_request_fields");
    expect(
      code(await b.api((c) => c.updatePassword({ password: "new-password-1", current_password: PASSWORD }))),
    ).toBe("ok");
    expect((await b.refresh()).status).toBe(200);
    expect((await other.refresh()).status).toBe(401);
    await signedIn("newcomer@acme.test", "new-password-1");
  });

  it("changes the email after the link sent to the new address is opened", async () => {
    const b = await signedIn("member@acme.test");
    expect(code(await b.api((c) => c.updateEmail({ new_email: "mia@other.test", password: "wrong" })))).toBe(
      "incorrect_password",
    );
    expect(code(await b.api((c) => c.updateEmail({ new_email: "mia@other.test", password: PASSWORD })))).toBe(
      "ok",
    );
    expect(code(await b.api((c) => c.updateEmail({ new_email: "mia@other.test", password: PASSWORD })))).toBe(
      "confirmation_email_sent",
    );
    expect((await b.refresh()).body.user).toMatchObject({ email: "member@acme.test" });
    const token = await emailToken(p, "mia@other.test", "confirm_email");
    await b.fetch(`${origin}/confirm_email?token=${encodeURIComponent(token)}`);
    expect((await b.refresh()).body.user).toMatchObject({ email: "mia@other.test", email_confirmed: true });
  });

  it("never takes over or reveals another account when the new email is already someone's", async () => {
    await p.identity.admin.createUser({ email: "tom@acme.test", password: PASSWORD });
    await p.identity.admin.createUser({ email: "tim@acme.test", password: PASSWORD });
    const b = await signedIn("tom@acme.test");
    const tim = await signedIn("tim@acme.test");
    const before = await p.database.db
      .select()
      .from(emailOutbox)
      .where(eq(emailOutbox.to, "admin@acme.test"));
    const taken = await fePost(b, "/update_email", { new_email: "Admin@Acme.test", password: PASSWORD });
    const fresh = await fePost(tim, "/update_email", { new_email: "tim@new-home.test", password: PASSWORD });
    // The same answer either way.
    expect([taken.status, await taken.text()]).toEqual([200, "{}"]);
    expect([fresh.status, await fresh.text()]).toEqual([200, "{}"]);
    // The owner of the taken address gets a notice, never a link that could move an account.
    const sent = (
      await p.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, "admin@acme.test"))
    ).slice(before.length);
    expect(sent.map((m) => m.kind)).toEqual(["email_change_attempt"]);
    expect(sent[0]?.text).not.toMatch(/token=/);
    expect((await b.refresh()).body.user).toMatchObject({ email: "tom@acme.test" });
    expect((await (await signedIn("admin@acme.test")).refresh()).body.user).toMatchObject({
      email: "admin@acme.test",
    });

    // The address is taken after the link was sent: following it changes nothing, and never fails.
    const link = await emailToken(p, "tim@new-home.test", "confirm_email");
    await p.identity.admin.createUser({ email: "tim@new-home.test", password: "another-password-1" });
    const opened = await tim.fetch(`${origin}/confirm_email?token=${encodeURIComponent(link)}`);
    expect(opened.status).toBeLessThan(500);
    expect(await opened.text()).not.toContain("Email confirmed");
    expect((await tim.refresh()).body.user).toMatchObject({ email: "tim@acme.test" });
    const owner = await signedIn("tim@new-home.test", "another-password-1");
    expect((await owner.refresh()).body.user).toMatchObject({ email: "tim@new-home.test" });
  });

  it("turns MFA on and off and reports already-done states", async () => {
    const b = await signedIn("admin@acme.test");
    expect(code(await b.api((c) => c.disableMfa()))).toBe("action_already_complete");
    const first = (await b.api((c) => c.fetchMfaStatusWithNewSecret())).data as { new_secret: string };
    const second = (await b.api((c) => c.fetchMfaStatusWithNewSecret())).data as { new_secret: string };
    expect(second.new_secret).not.toBe(first.new_secret);
    // Only the newest secret counts.
    expect(code(await b.api((c) => c.enableMfa({ code: totp(first.new_secret) })))).toBe(
      "invalid_request_fields",
    );
    expect(code(await b.api((c) => c.enableMfa({ code: totp(second.new_secret) })))).toBe("ok");
    expect((await b.refresh()).status).toBe(200);
    // The session alone is not enough (the PropelAuth client sends no factor); a fresh code is.
    expect(code(await b.api((c) => c.disableMfa()))).toBe("invalid_request_fields");
    expect((await fePost(b, "/mfa_disable", { code: nextTotp(second.new_secret) })).status).toBe(200);
    expect((await b.api((c) => c.fetchMfaStatusWithNewSecret())).data).toMatchObject({ type: "Disabled" });
    const again = browser();
    expect(
      (await again.api((c) => c.emailPasswordLogin({ email: "admin@acme.test", password: PASSWORD }))).data,
    ).toEqual({ login_state: "Finished" });
  });

  it("turns MFA off or makes new backup codes only with a fresh factor, and never lists the codes", async () => {
    const email = "steady@new.test";
    const pw = "steady-password-1";
    const { b, new_secret } = await confirmedWithNewSecret(email, pw);
    const enableCode = totp(new_secret);
    const enabled = await fePost(b, "/mfa_enable", { code: enableCode });
    expect(enabled.status).toBe(200);
    const first = ((await enabled.json()) as { backup_codes: string[] }).backup_codes;
    expect(first).toHaveLength(10);
    const status = await b.api((c) => c.fetchMfaStatusWithNewSecret());
    expect(status.data).toEqual({
      type: "Enabled",
      mfa_enabled: true,
      backup_codes: [],
      backup_codes_remaining: 10,
    });
    for (const c of first) expect(JSON.stringify(status.data)).not.toContain(c);

    const errorOf = async (res: Response) => ({ status: res.status, code: (await res.json()).error_code });
    expect(code(await b.api((c) => c.disableMfa()))).toBe("invalid_request_fields");
    expect(await errorOf(await fePost(b, "/mfa_disable", {}))).toEqual({
      status: 400,
      code: "invalid_request_fields",
    });
    expect(await errorOf(await fePost(b, "/mfa_disable", { password: "not-my-password" }))).toEqual({
      status: 401,
      code: "incorrect_password",
    });
    // The code that turned MFA on is spent.
    expect(await errorOf(await fePost(b, "/mfa_disable", { code: enableCode }))).toEqual({
      status: 400,
      code: "incorrect_mfa_code",
    });
    expect(await errorOf(await fePost(b, "/mfa_disable", { backup_code: "nope0-nope0" }))).toEqual({
      status: 400,
      code: "incorrect_mfa_code",
    });
    expect(await errorOf(await fePost(b, "/mfa_backup_codes", {}))).toEqual({
      status: 400,
      code: "invalid_request_fields",
    });
    expect((await b.api((c) => c.fetchMfaStatusWithNewSecret())).data).toMatchObject({ type: "Enabled" });

    // New backup codes with the password: the old ones stop working.
    const regenerated = await fePost(b, "/mfa_backup_codes", { password: pw });
    expect(regenerated.status).toBe(200);
    const second = ((await regenerated.json()) as { backup_codes: string[] }).backup_codes;
    expect(second).toHaveLength(10);
    expect(second).not.toContain(first[0]);
    expect(await errorOf(await fePost(b, "/mfa_disable", { backup_code: first[0] }))).toEqual({
      status: 400,
      code: "incorrect_mfa_code",
    });
    // A current backup code turns MFA off.
    expect((await fePost(b, "/mfa_disable", { backup_code: second[0] })).status).toBe(200);
    expect((await b.api((c) => c.fetchMfaStatusWithNewSecret())).data).toMatchObject({ type: "Disabled" });
    expect((await browser().api((c) => c.emailPasswordLogin({ email, password: pw }))).data).toEqual({
      login_state: "Finished",
    });
  });

  it("asks for a code or the password before turning MFA off on the hosted account page", async () => {
    const email = "hosted-mfa@new.test";
    const pw = "hosted-password-1";
    const { b, new_secret } = await confirmedWithNewSecret(email, pw);
    expect(code(await b.api((c) => c.enableMfa({ code: totp(new_secret) })))).toBe("ok");
    const post = (path: string, fields: Record<string, string>) =>
      b.fetch(`${origin}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
        body: new URLSearchParams(fields),
      });
    const page = await (await b.fetch(`${origin}/account`)).text();
    expect(page).toContain("10 backup codes left.");
    expect(page).toContain("Make new backup codes");
    const bare = await post("/account/mfa/disable", {});
    expect(bare.status).toBe(400);
    expect(await bare.text()).toContain("Two-factor authentication is <strong>on</strong>");
    const wrong = await post("/account/mfa/disable", { mfa_password: "not-my-password" });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("The password is not correct.");
    const codes = await post("/account/mfa/backup_codes", { code: nextTotp(new_secret) });
    expect(codes.status).toBe(200);
    const shown = await codes.text();
    expect(shown).toContain("New backup codes made.");
    const backup = shown.match(/<span>([A-Za-z0-9]{5}-[A-Za-z0-9]{5})<\/span>/)?.[1];
    expect(backup).toBeDefined();
    const off = await post("/account/mfa/disable", { code: backup! });
    expect(off.status).toBe(200);
    expect(await off.text()).toContain("Two-factor authentication is off.");
  });

  it("deletes the account", async () => {
    const b = browser();
    await b.api((c) => c.signup({ email: "gone@new.test", password: "gone-password-1" }));
    await b.fetch(
      `${origin}/confirm_email?token=${encodeURIComponent(await emailToken(p, "gone@new.test", "confirm_email"))}`,
    );
    expect((await b.refresh()).status).toBe(200);
    expect(code(await b.api((c) => c.deleteAccount()))).toBe("ok");
    expect((await b.refresh()).status).toBe(401);
    expect(
      code(
        await browser().api((c) =>
          c.emailPasswordLogin({ email: "gone@new.test", password: "gone-password-1" }),
        ),
      ),
    ).toBe("user_not_found");
  });

  it("refuses bad bodies with 4xx, never 500", async () => {
    const b = await signedIn("admin@acme.test");
    const send = (method: string, path: string, body?: string) =>
      b.fetch(`${origin}/api/fe/v3${path}`, {
        method,
        headers: { "content-type": "application/json", "x-csrf-token": "-.-" },
        ...(body === undefined ? {} : { body }),
      });
    const cases: [string, string, string | undefined][] = [
      ["POST", "/mfa_enable", undefined],
      ["POST", "/mfa_enable", JSON.stringify({ code: 123456 })],
      ["POST", "/security_status", JSON.stringify({ surprise: true })],
      ["POST", "/mfa_disable", JSON.stringify({ code: 123456 })],
      ["POST", "/mfa_disable", JSON.stringify({ password: "x".repeat(500) })],
      ["POST", "/mfa_backup_codes", JSON.stringify({ surprise: true })],
      ["POST", "/update_email", JSON.stringify({ new_email: "nope" })],
      ["POST", "/update_password", JSON.stringify({ password: "x".repeat(500) })],
      ["POST", "/update_metadata", JSON.stringify({ first_name: "x".repeat(1000) })],
      ["POST", "/update_metadata", JSON.stringify({ username: "bad name!" })],
      ["POST", "/update_metadata", "[1,2"],
      ["DELETE", "/delete_me", JSON.stringify({ really: true })],
    ];
    for (const [method, path, body] of cases) {
      const r = await send(method, path, body);
      expect(r.status, `${path} ${body}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${path} ${body}`).toBeLessThan(500);
      expect(["invalid_request_fields", "bad_request"]).toContain((await r.json()).error_code);
    }
    expect((await b.refresh()).status).toBe(200);
  });
});
