import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { generateKeyPair, importPKCS8, SignJWT } from "jose";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { installApiRouteHooks } from "../../server/api/route-hooks";
import { json, WorkspaceSchema } from "../../server/api/schemas";
import { loadSigningKeys } from "../../server/identity/settings";
import { ApiError, installApiErrors } from "../../server/platform/errors";
import { createHttpApp } from "../../server/platform/http";
import { AUTH, accessToken, backends, startProduct, type TestProduct } from "./harness";

describe.each(backends())("product API on $name", (backend) => {
  let p: TestProduct;
  beforeAll(async () => {
    p = await startProduct(backend);
  });
  afterAll(async () => p?.dispose());

  const me = (token?: string) =>
    p.api.app.inject({
      method: "GET",
      url: "/v1/accounts/me",
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  it("returns the administrator's current-user entity", async () => {
    const res = await me(await accessToken(p, "admin@acme.test"));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      email: "admin@acme.test",
      is_admin: true,
      is_impersonating: false,
      is_operator: false,
      organization: { name: "Acme AI" },
      workspace: { name: "Safety Research" },
      org_admin_emails: ["admin@acme.test"],
    });
    expect(body.organization.org_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.workspace.workspace_uuid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("tells a member apart from an administrator and finds their workspace", async () => {
    const body = (await me(await accessToken(p, "member@acme.test"))).json();
    expect(body).toMatchObject({
      is_admin: false,
      workspace: { name: "Safety Research" },
      org_admin_emails: ["admin@acme.test"],
    });
  });

  it("gives a member with no workspace workspace: null", async () => {
    const body = (await me(await accessToken(p, "newcomer@acme.test"))).json();
    expect(body).toMatchObject({ email: "newcomer@acme.test", is_admin: false, workspace: null });
  });

  it("answers 401 JSON without a token, with a malformed header, or with a garbage token", async () => {
    for (const headers of [{}, { authorization: "Token abc" }, { authorization: "Bearer not.a.jwt" }]) {
      const res = await p.api.app.inject({ method: "GET", url: "/v1/accounts/me", headers });
      expect(res.statusCode).toBe(401);
      expect(res.headers["content-type"]).toContain("application/json");
      expect(res.json().error.code).toBe("unauthorized");
      expect(typeof res.json().error.message).toBe("string");
    }
  });

  it("refuses tokens signed by another key, with another issuer, or expired", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    const claims = { user_id: "u1", email: "x@y.z", org_id_to_org_member_info: {} };
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256" })
      .setIssuer(AUTH)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privateKey);
    expect((await me(forged)).statusCode).toBe(401);

    const real = await accessToken(p, "admin@acme.test");
    const [h, payload] = real.split(".");
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), email: "evil@x.y" })).toString("base64url")}.${real.split(".")[2]}`;
    expect((await me(tampered)).statusCode).toBe(401);

    // Signed with the real key: only the expiry or the issuer is wrong. (The user must exist: a
    // token of an unknown or deleted user counts at no token version.)
    const realKey = await importPKCS8((await loadSigningKeys(p.database.db)).privatePem, "RS256");
    const adminId = JSON.parse(Buffer.from(payload!, "base64url").toString()).user_id as string;
    const sign = (iss: string, exp: number) =>
      new SignJWT({ ...claims, user_id: adminId })
        .setProtectedHeader({ alg: "RS256" })
        .setIssuer(iss)
        .setIssuedAt(exp - 100)
        .setExpirationTime(exp)
        .sign(realKey);
    const now = Math.floor(Date.now() / 1000);
    expect((await me(await sign(AUTH, now + 600))).statusCode).toBe(200);
    const expired = await me(await sign(AUTH, now - 10));
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.message).toBe("The access token has expired.");
    expect((await me(await sign("https://other.example", now + 600))).statusCode).toBe(401);
  });

  it("serves run-time console configuration and the console for client-side routes", async () => {
    const cfg = await p.api.app.inject({ method: "GET", url: "/config.json" });
    expect(cfg.json()).toEqual({
      apiUrl: "http://localhost:3000",
      authUrl: AUTH,
      productName: "Eval Console",
    });
    const page = await p.api.app.inject({ method: "GET", url: "/organization/workspaces" });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("console fixture");
  });

  it("keeps unknown API paths as JSON 404s and reports health", async () => {
    const res = await p.api.app.inject({ method: "GET", url: "/v1/nope" });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe("not_found");
    expect((await p.api.app.inject({ method: "GET", url: "/healthz" })).json()).toEqual({ status: "ok" });
    expect((await p.api.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
  });
});

describe("demo seed", () => {
  it("completes a demo whose first run was cut short, and leaves a finished one alone", async () => {
    const [pglite] = backends();
    const p = await startProduct(pglite!);
    try {
      // Simulate an interrupted first run: the organization and one workspace exist, no users yet.
      const { user } = await import("../../server/db/schema");
      await p.database.db.delete(user);
      const again = await p.seed(false);
      expect(again.created).toBe(true);
      const body = (
        await p.api.app.inject({
          method: "GET",
          url: "/v1/accounts/me",
          headers: { authorization: `Bearer ${await accessToken(p, "member@acme.test")}` },
        })
      ).json();
      expect(body).toMatchObject({
        organization: { name: "Acme AI" },
        workspace: { name: "Safety Research" },
      });
      expect(await p.seed(false)).toEqual({ created: false, reason: "the demo organization already exists" });
    } finally {
      await p.dispose();
    }
  });
});

describe("the product API's route contract", () => {
  // A route of the API's shape whose handler breaks its own response schema (a bug of ours).
  async function appWith(log: string[]) {
    const logger = pino({ level: "error" }, { write: (line: string) => log.push(line) });
    const app = createHttpApp(logger);
    installApiErrors(app);
    await app.register(async (v1) => {
      installApiRouteHooks(v1, async () => {
        throw new ApiError("unauthorized", "Missing bearer token.");
      });
      v1.withTypeProvider<ZodTypeProvider>().get(
        "/v1/broken",
        {
          config: { auth: "none" },
          schema: { response: { 200: json("A workspace", WorkspaceSchema) } },
        },
        async () => ({ name: "no uuid, no dates" }) as unknown as z.output<typeof WorkspaceSchema>,
      );
      v1.get("/v1/private", { config: { auth: "bearer" } }, async () => ({ secret: true }));
      v1.post("/v1/bodiless", { config: { auth: "none" } }, async (_req, reply) => reply.status(204).send());
    });
    return app;
  }

  it("answers 500 internal_error, logged, when a response does not match its schema", async () => {
    const log: string[] = [];
    const app = await appWith(log);
    const res = await app.inject("/v1/broken");
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      error: { code: "internal_error", message: "An unexpected error occurred." },
    });
    expect(res.body).not.toContain("no uuid");
    expect(log.join("\n")).toContain("response does not match its schema");
    await app.close();
  });

  it("authenticates in onRequest, refuses a body where the route takes none, and fails to start without config.auth", async () => {
    const app = await appWith([]);
    const res = await app.inject("/v1/private");
    expect(res.statusCode).toBe(401);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.json()).toEqual({ error: { code: "unauthorized", message: "Missing bearer token." } });
    expect((await app.inject({ method: "POST", url: "/v1/bodiless" })).statusCode).toBe(204);
    const withBody = await app.inject({ method: "POST", url: "/v1/bodiless", payload: { q: 1 } });
    expect(withBody.statusCode).toBe(400);
    expect(withBody.json().error.message).toBe("This call takes no request body.");
    await app.close();

    const bare = createHttpApp(pino({ level: "silent" }));
    bare.register(async (v1) => {
      installApiRouteHooks(v1, async () => {
        throw new Error("not called");
      });
      v1.get("/v1/open", async () => ({}));
    });
    await expect(bare.ready()).rejects.toThrow("GET /v1/open declares no config.auth");
  });
});
