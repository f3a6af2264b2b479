import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { DBAdapter } from "better-auth";
import { and, desc, eq } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProduct, type Product } from "../../server/app";
import { emailOutbox, invitation, session, setting, verification } from "../../server/db/schema";
import {
  hashedSessionTokens,
  hashLegacySessionTokens,
  hashToken,
} from "../../server/identity/better-auth/hashed-tokens";
import { loadSigningKeys } from "../../server/identity/settings";
import { loadConfig } from "../../server/platform/config";
import { openDatabase } from "../../server/platform/database";
import { createLogger, redactText, redactUrl } from "../../server/platform/logger";
import {
  keyId,
  loadOrCreateKeyFile,
  makeKeyring,
  seal,
  sealedWith,
  unseal,
} from "../../server/platform/secrets";
import { AUTH, backends, CONSOLE, PASSWORD, signIn } from "./harness";

// Secrets at rest and in logs: session tokens, emailed link tokens and invitation ids are kept as
// digests; the signing key, auth secret and backend API key are sealed under SECRETS_KEY (or a
// 0600 key file in DATA_DIR); request and error logs never carry a token.

const sha256hex = (s: string) => createHash("sha256").update(s).digest("hex");

/** A logger writing JSON lines into memory, as the server's own logger does to stdout. */
function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { logger: createLogger("info", stream as never), text: () => lines.join("") };
}

/** The raw session token inside the signed session cookie of a Cookie header. */
function sessionTokenOf(cookie: string): string {
  const pair = cookie.split("; ").find((c) => c.startsWith("eval_console.session_token="));
  const value = decodeURIComponent(pair?.split("=").slice(1).join("=") ?? "");
  return value.slice(0, value.lastIndexOf("."));
}

describe("session tokens are stored as digests (adapter wrapper)", () => {
  type Call = { op: string; args: Record<string, unknown> };
  function fakeAdapter() {
    const calls: Call[] = [];
    const rows: Record<string, unknown>[] = [];
    const match = (
      where: { field: string; value: unknown; operator?: string }[] = [],
      r: Record<string, unknown>,
    ) =>
      where.every((w) =>
        w.operator === "in" ? (w.value as unknown[]).includes(r[w.field]) : r[w.field] === w.value,
      );
    const adapter = {
      id: "fake",
      create: async (args: { model: string; data: Record<string, unknown> }) => {
        calls.push({ op: "create", args });
        rows.push({ ...args.data });
        return { ...args.data };
      },
      findOne: async (args: { model: string; where: never[] }) => {
        calls.push({ op: "findOne", args });
        return rows.find((r) => match(args.where, r)) ?? null;
      },
      findMany: async (args: { model: string; where?: never[] }) => {
        calls.push({ op: "findMany", args });
        return rows.filter((r) => match(args.where, r));
      },
      count: async () => rows.length,
      update: async (args: { model: string; where: never[]; update: Record<string, unknown> }) => {
        calls.push({ op: "update", args });
        const r = rows.find((x) => match(args.where, x));
        if (r) Object.assign(r, args.update);
        return r ?? null;
      },
      updateMany: async () => 0,
      delete: async (args: { model: string; where: never[] }) => {
        calls.push({ op: "delete", args });
        const i = rows.findIndex((r) => match(args.where, r));
        if (i >= 0) rows.splice(i, 1);
      },
      deleteMany: async () => 0,
      consumeOne: async () => null,
      incrementOne: async () => null,
      transaction: async <R>(cb: (trx: unknown) => Promise<R>) => cb(adapter),
    };
    return { adapter, calls, rows };
  }

  it("stores the digest, finds, updates and deletes by the raw token, and answers with it", async () => {
    const { adapter, rows } = fakeAdapter();
    const a = hashedSessionTokens(() => adapter as unknown as DBAdapter)({});
    const token = randomBytes(24).toString("base64url");
    const created = await a.create<{ token: string; userId: string }>({
      model: "session",
      data: { token, userId: "u1" },
    });
    expect(created.token).toBe(token);
    expect(rows[0]?.token).toBe(sha256hex(token));
    expect(JSON.stringify(rows)).not.toContain(token);

    const found = await a.findOne<{ token: string }>({
      model: "session",
      where: [{ field: "token", value: token }],
    });
    expect(found?.token).toBe(token);
    const many = await a.findMany<{ token: string }>({
      model: "session",
      where: [{ field: "token", operator: "in", value: [token, "other"] }],
    });
    expect(many.map((r) => r.token)).toEqual([token]);
    // Listed by user: the digest only (the raw token is not known here).
    const byUser = await a.findMany<{ token: string }>({
      model: "session",
      where: [{ field: "userId", value: "u1" }],
    });
    expect(byUser[0]?.token).toBe(sha256hex(token));
    // The digest itself is not a token: looking it up finds nothing.
    expect(
      await a.findOne({ model: "session", where: [{ field: "token", value: sha256hex(token) }] }),
    ).toBeNull();

    const updated = await a.update<{ token: string; activeOrganizationId: string }>({
      model: "session",
      where: [{ field: "token", value: token }],
      update: { activeOrganizationId: "o1" },
    });
    expect(updated).toMatchObject({ token, activeOrganizationId: "o1" });
    await a.transaction(async (trx) => {
      expect(
        (
          await trx.findOne<{ token: string }>({
            model: "session",
            where: [{ field: "token", value: token }],
          })
        )?.token,
      ).toBe(token);
    });
    await a.delete({ model: "session", where: [{ field: "token", value: token }] });
    expect(rows).toHaveLength(0);
  });

  it("leaves other models alone", async () => {
    const { adapter, rows } = fakeAdapter();
    const a = hashedSessionTokens(() => adapter as unknown as DBAdapter)({});
    await a.create({ model: "verification", data: { token: "plain", identifier: "x" } });
    expect(rows[0]?.token).toBe("plain");
  });
});

describe("log redaction", () => {
  it("removes secret query parameters, invitation ids and token-like path parts", () => {
    expect(redactUrl("/reset_password?token=abc123&rt=https%3A%2F%2Fx")).toBe(
      "/reset_password?token=[REDACTED]&rt=https%3A%2F%2Fx",
    );
    expect(redactUrl("/accept_invite?id=0c8e0a7e-1111-2222-3333-444455556666")).toBe(
      "/accept_invite?id=[REDACTED]",
    );
    expect(redactUrl("/api/auth/callback/google?code=4%2F0Ab&state=xyz")).toBe(
      "/api/auth/callback/google?code=[REDACTED]&state=[REDACTED]",
    );
    expect(redactUrl("/api/auth/reset-password/Zk3qP9xLm2Vb7Rt5Yw8Nc4Hd6Jf1?callbackURL=/")).toBe(
      "/api/auth/reset-password/[REDACTED]?callbackURL=/",
    );
    expect(redactUrl("/x/Zk3qP9xLm2Vb7Rt5Yw8Nc4Hd6Jf1AbCd")).toBe("/x/[REDACTED]");
    // Ordinary ids and slugs stay readable.
    expect(redactUrl("/v1/workspaces/accuracy-benchmarks-1a2b3c4d")).toBe(
      "/v1/workspaces/accuracy-benchmarks-1a2b3c4d",
    );
    expect(redactUrl("/api/backend/v1/user/0c8e0a7e-1111-2222-3333-444455556666")).toBe(
      "/api/backend/v1/user/0c8e0a7e-1111-2222-3333-444455556666",
    );
    expect(redactText("open http://h:3001/magic_link?token=s3cr3t&rt=%2F now")).toBe(
      "open http://h:3001/magic_link?token=[REDACTED]&rt=%2F now",
    );
  });

  it("drops credential headers and secret fields from logged objects", () => {
    const { logger, text } = capturingLogger();
    logger.info(
      {
        headers: {
          authorization: "Bearer sekrit-1",
          cookie: "a=sekrit-2",
          "x-api-key": "sekrit-3",
          "x-csrf-token": "s4",
        },
        password: "sekrit-5",
      },
      "hello",
    );
    expect(text()).not.toMatch(/sekrit|"s4"/);
    expect(text()).toContain("[REDACTED]");
  });
});

describe("stored secrets (AES-256-GCM)", () => {
  it("seals under the current key, opens under a previous one, refuses an unknown key", () => {
    const k1 = randomBytes(32);
    const k2 = randomBytes(32);
    const sealed = seal(makeKeyring(k1), "auth_secret", "the secret");
    expect(sealed).not.toContain("the secret");
    expect(sealedWith(sealed)).toBe(keyId(k1));
    expect(unseal(makeKeyring(k2, [k1]), "auth_secret", sealed)).toBe("the secret");
    expect(() => unseal(makeKeyring(k2), "auth_secret", sealed)).toThrow(/SECRETS_KEY_PREVIOUS/);
    // Bound to its setting: the same value cannot be moved to another name.
    expect(() => unseal(makeKeyring(k1), "backend_api_key", sealed)).toThrow(/cannot be decrypted/);
  });

  it("SECRETS_KEY takes 32 bytes as hex or base64; anything else stops the start", () => {
    const hex = randomBytes(32).toString("hex");
    const b64 = randomBytes(32).toString("base64");
    expect(loadConfig({ SECRETS_KEY: hex }).secretsKey?.toString("hex")).toBe(hex);
    expect(
      loadConfig({ SECRETS_KEY: b64, SECRETS_KEY_PREVIOUS: `${hex}, ${b64}` }).secretsKeysPrevious,
    ).toHaveLength(2);
    expect(() => loadConfig({ SECRETS_KEY: "too-short" })).toThrow(/SECRETS_KEY must be 32 random bytes/);
    expect(() => loadConfig({ SECRETS_KEY: randomBytes(16).toString("hex") })).toThrow(/SECRETS_KEY/);
    expect(() => loadConfig({ SECRETS_KEY: hex, SECRETS_KEY_PREVIOUS: "nope" })).toThrow(
      /SECRETS_KEY_PREVIOUS/,
    );
    expect(() => loadConfig({ SECRETS_KEY_PREVIOUS: hex })).toThrow(/SECRETS_KEY is not/);
  });

  it("makes DATA_DIR/secrets.key with mode 0600 once and reuses it", () => {
    const dir = mkdtempSync(join(tmpdir(), "ec-secrets-"));
    try {
      const first = loadOrCreateKeyFile(dir);
      expect(first.created).toBe(true);
      expect(statSync(join(dir, "secrets.key")).mode & 0o777).toBe(0o600);
      const again = loadOrCreateKeyFile(dir);
      expect(again.created).toBe(false);
      expect(again.key.equals(first.key)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("embedded default: key file and rotation across restarts", () => {
  const dir = mkdtempSync(join(tmpdir(), "ec-rotate-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = async (env: Record<string, string> = {}) => {
    const config = loadConfig({ DATA_DIR: dir, CONSOLE_DIR: "./tests/server/fixtures/console", ...env });
    return buildProduct(config, createLogger("silent"));
  };
  const settingsOf = async (p: Product) => p.database.db.select().from(setting);

  it("first start: key file 0600, secrets sealed under it; restart reuses it", async () => {
    let p = await start();
    const keyFile = join(dir, "secrets.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const fileKey = readFileSync(keyFile, "utf8");
    const rows = await settingsOf(p);
    expect(rows.map((r) => r.key).sort()).toEqual(["auth_secret", "backend_api_key", "token_signing_key"]);
    for (const r of rows) expect(r.value).toMatch(/^enc:v1:/);
    const authSecret = p.identity.auth.options.secret;
    const backendKey = p.identity.ctx.backendApiKey;
    const all = JSON.stringify(rows);
    expect(all).not.toContain("PRIVATE KEY");
    expect(all).not.toContain(authSecret);
    expect(all).not.toContain(backendKey);
    await p.close();

    p = await start();
    expect(readFileSync(keyFile, "utf8")).toBe(fileKey);
    expect(p.identity.auth.options.secret).toBe(authSecret);
    expect(p.identity.ctx.backendApiKey).toBe(backendKey);
    await p.close();
  });

  it("rotation: plaintext legacy values and values under the previous key are re-sealed under the new key", async () => {
    const k1 = randomBytes(32).toString("base64");
    const k2 = randomBytes(32).toString("hex");
    // A legacy installation: the auth secret in clear.
    const db = await openDatabase({ kind: "pglite", dataDir: dir });
    await db.db.delete(setting).where(eq(setting.key, "auth_secret"));
    await db.db
      .insert(setting)
      .values({ key: "auth_secret", value: "legacy-plaintext-auth-secret-0123456789" });
    await db.close();

    let p = await start({
      SECRETS_KEY: k1,
      SECRETS_KEY_PREVIOUS: readFileSync(join(dir, "secrets.key"), "utf8").trim(),
    });
    const k1Id = keyId(Buffer.from(k1, "base64"));
    for (const r of await settingsOf(p)) expect(sealedWith(r.value), r.key).toBe(k1Id);
    expect(p.identity.auth.options.secret).toBe("legacy-plaintext-auth-secret-0123456789");
    const kid = (await loadSigningKeys(p.database.db)).kid;
    await p.close();

    p = await start({ SECRETS_KEY: k2, SECRETS_KEY_PREVIOUS: k1 });
    const k2Id = keyId(Buffer.from(k2, "hex"));
    for (const r of await settingsOf(p)) expect(sealedWith(r.value), r.key).toBe(k2Id);
    expect(p.identity.auth.options.secret).toBe("legacy-plaintext-auth-secret-0123456789");
    expect((await loadSigningKeys(p.database.db)).kid).toBe(kid);
    await p.close();

    // Without the key the values were sealed with, the server refuses to start (and says why).
    await expect(start({ SECRETS_KEY: randomBytes(32).toString("hex") })).rejects.toThrow(
      /SECRETS_KEY_PREVIOUS/,
    );
  });
});

describe("emails delivered over SMTP", () => {
  it("the outbox copy keeps no link token once the email is delivered", async () => {
    const received: string[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, _session, done) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          received.push(Buffer.concat(chunks).toString("utf8"));
          done();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    const database = await openDatabase({ kind: "pglite", dataDir: null });
    const config = loadConfig({
      DEMO_PASSWORD: PASSWORD,
      CONSOLE_DIR: "./tests/server/fixtures/console",
      SMTP_URL: `smtp://127.0.0.1:${port}`,
    });
    const p = await buildProduct(config, createLogger("silent"), database);
    try {
      await p.seed(false);
      const res = await p.identity.app.inject({
        method: "POST",
        url: "/forgot_password",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
        payload: new URLSearchParams({ email: "admin@acme.test" }).toString(),
      });
      expect(res.statusCode).toBe(200);
      const mail = received.join("").replace(/=\r?\n/g, "");
      const token = mail.match(/reset_password\?token=([\w%-]+)/)?.[1] ?? "";
      expect(token.length).toBeGreaterThan(10);
      const [row] = await p.database.db
        .select()
        .from(emailOutbox)
        .where(and(eq(emailOutbox.to, "admin@acme.test"), eq(emailOutbox.kind, "reset_password")));
      expect(row?.deliveredAt).not.toBeNull();
      expect(row?.text).toContain("reset_password?token=[REDACTED]");
      expect(JSON.stringify(row)).not.toContain(token);
    } finally {
      await p.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});

for (const backend of backends()) {
  describe(`secrets at rest and in logs on '${backend.name}'`, () => {
    let p: Product & { dispose(): Promise<void> };
    let logs: ReturnType<typeof capturingLogger>;
    const dataDir = mkdtempSync(join(tmpdir(), "ec-secrets-it-"));

    beforeAll(async () => {
      const { database, drop } = await backend.open();
      logs = capturingLogger();
      const config = loadConfig({
        DEMO_PASSWORD: PASSWORD,
        CONSOLE_DIR: "./tests/server/fixtures/console",
        DATA_DIR: dataDir,
      });
      const product = await buildProduct(config, logs.logger, database);
      await product.seed(false);
      p = {
        ...product,
        async dispose() {
          await product.close();
          await drop();
        },
      };
    });
    afterAll(async () => {
      await p?.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const db = () => p.database.db;
    const form = (url: string, body: Record<string, string>, cookie?: string) =>
      p.identity.app.inject({
        method: "POST",
        url,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: AUTH,
          ...(cookie ? { cookie } : {}),
        },
        payload: new URLSearchParams(body).toString(),
      });
    const lastEmail = async (to: string, kind: string) => {
      const [mail] = await db()
        .select()
        .from(emailOutbox)
        .where(and(eq(emailOutbox.to, to), eq(emailOutbox.kind, kind as never)))
        .orderBy(desc(emailOutbox.createdAt))
        .limit(1);
      return mail?.text ?? "";
    };

    it("the session table holds no value equal to the cookie's token", async () => {
      const cookie = await signIn(p, "admin@acme.test");
      const token = sessionTokenOf(cookie);
      expect(token.length).toBeGreaterThanOrEqual(32);
      const rows = await db().select().from(session);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.some((r) => r.token === token)).toBe(false);
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(rows.some((r) => r.token === sha256hex(token))).toBe(true);
      // The cookie still works.
      const me = await p.identity.app.inject({
        method: "GET",
        url: "/api/v1/refresh_token",
        headers: { cookie },
      });
      expect(me.statusCode).toBe(200);
      // Signing out (what /api/v1/logout calls) finds the session by the cookie's token and ends it.
      await p.identity.auth.api.signOut({ headers: new Headers({ cookie, origin: CONSOLE }) });
      expect(
        (
          await db()
            .select()
            .from(session)
            .where(eq(session.token, sha256hex(token)))
        ).length,
      ).toBe(0);
    });

    it("sessions stored before hashing are hashed in place at start and stay signed in", async () => {
      const cookie = await signIn(p, "admin@acme.test");
      const token = sessionTokenOf(cookie);
      // As a row written before the upgrade: the raw token.
      await db()
        .update(session)
        .set({ token })
        .where(eq(session.token, sha256hex(token)));
      await hashLegacySessionTokens(db());
      await hashLegacySessionTokens(db());
      const rows = await db().select().from(session);
      expect(rows.some((r) => r.token === token)).toBe(false);
      expect(rows.some((r) => r.token === sha256hex(token))).toBe(true);
      const me = await p.identity.app.inject({
        method: "GET",
        url: "/api/v1/refresh_token",
        headers: { cookie },
      });
      expect(me.statusCode).toBe(200);
    });

    it("the settings table holds no plaintext private key, auth secret or backend API key", async () => {
      const rows = await db().select().from(setting);
      const all = JSON.stringify(rows);
      expect(rows.length).toBeGreaterThanOrEqual(3);
      for (const r of rows.filter((x) =>
        ["token_signing_key", "auth_secret", "backend_api_key"].includes(x.key),
      ))
        expect(r.value).toMatch(/^enc:v1:/);
      expect(all).not.toContain("PRIVATE KEY");
      expect(all).not.toContain(p.identity.auth.options.secret);
      expect(all).not.toContain(p.identity.ctx.backendApiKey);
    });

    it("reset, magic-link and invitation links: no raw token in the database or in any log line", async () => {
      const email = "admin@acme.test";
      expect((await form("/forgot_password", { email })).statusCode).toBe(200);
      const reset = decodeURIComponent(
        (await lastEmail(email, "reset_password")).match(/[?&]token=([^\s&]+)/)?.[1] ?? "",
      );
      expect(reset.length).toBeGreaterThan(10);
      expect((await form("/magic_link/request", { email })).statusCode).toBe(200);
      const magic = decodeURIComponent(
        (await lastEmail(email, "magic_link")).match(/[?&]token=([^\s&]+)/)?.[1] ?? "",
      );
      expect(magic.length).toBeGreaterThan(10);
      const stored = JSON.stringify(await db().select().from(verification));
      expect(stored).not.toContain(reset);
      expect(stored).not.toContain(magic);

      // An invitation: the link id is not a row id.
      const cookie = await signIn(p, "admin@acme.test");
      const info = (
        await p.identity.app.inject({ method: "GET", url: "/api/v1/refresh_token", headers: { cookie } })
      ).json() as { org_id_to_org_member_info: Record<string, unknown> };
      const orgId = Object.keys(info.org_id_to_org_member_info)[0] ?? "";
      const invited = await p.identity.app.inject({
        method: "POST",
        url: "/api/fe/v3/invite_user",
        headers: { cookie, "content-type": "application/json", "x-csrf-token": "-.-", origin: CONSOLE },
        payload: JSON.stringify({ org_id: orgId, email: "newbie@acme.test", role: "Member" }),
      });
      expect(invited.statusCode).toBe(200);
      const inviteId =
        (await lastEmail("newbie@acme.test", "invitation")).match(/accept_invite\?id=([0-9a-f-]{36})/)?.[1] ??
        "";
      expect(inviteId).not.toBe("");
      const invites = await db().select().from(invitation);
      expect(JSON.stringify(invites)).not.toContain(inviteId);
      expect(invites.some((r) => r.id === hashToken(inviteId))).toBe(true);
      // The link still opens the invitation.
      const page = await p.identity.app.inject({ method: "GET", url: `/accept_invite?id=${inviteId}` });
      expect(page.statusCode).toBe(200);
      // A digest read from the table is no link.
      const byDigest = await p.identity.app.inject({
        method: "GET",
        url: `/accept_invite?id=${hashToken(inviteId)}`,
      });
      expect(byDigest.statusCode).toBe(404);

      // Open every link (and a few malformed ones) so they go through the request log.
      for (const url of [
        `/reset_password?token=${encodeURIComponent(reset)}`,
        `/magic_link?token=${encodeURIComponent(magic)}`,
        `/confirm_email?token=${encodeURIComponent(reset)}`,
        `/unlock_account?token=${encodeURIComponent(magic)}`,
        `/api/auth/reset-password/${encodeURIComponent(reset)}?callbackURL=%2F`,
        `/no_such_page?token=${encodeURIComponent(reset)}`,
      ])
        await p.identity.app.inject({ method: "GET", url });
      const reqUrl = `/reset_password?token=${encodeURIComponent(reset)}`;
      await form(reqUrl, {
        token: reset,
        password: "a-new-password-123",
        confirm_password: "a-new-password-123",
      });

      const text = logs.text();
      expect(text).toContain('"msg":"incoming request"');
      expect(text).toContain("/reset_password?token=[REDACTED]");
      expect(text).toContain("accept_invite?id=[REDACTED]");
      for (const secret of [reset, magic, inviteId, encodeURIComponent(reset), encodeURIComponent(magic)])
        expect(text).not.toContain(secret);
      expect(text).not.toContain(sessionTokenOf(cookie));
    });

    if (backend.name === "postgres")
      it("PostgreSQL without SECRETS_KEY: a key file in DATA_DIR (0600) and a warning", () => {
        expect(statSync(join(dataDir, "secrets.key")).mode & 0o777).toBe(0o600);
        expect(logs.text()).toMatch(/"level":40[^\n]*SECRETS_KEY is not set/);
      });
  });
}
