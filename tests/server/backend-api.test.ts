import { eq } from "drizzle-orm";
import type { InjectOptions } from "fastify";
import { importSPKI, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKey, member } from "../../server/db/schema";
import { createHttpIdentityGateway } from "../../server/platform/identity-gateway-http";
import {
  AUTH,
  accessToken,
  apiOverHttpGateway,
  backends,
  PASSWORD,
  signIn,
  startProduct,
  type TestProduct,
} from "./harness";

const VALIDATE = "/api/backend/v1/end_user_api_keys/validate";

describe.each(backends())("backend API and API keys in the product API on $name", (backend) => {
  let p: TestProduct;
  let orgId: string;
  const cookies = new Map<string, string>();
  beforeAll(async () => {
    p = await startProduct(backend);
    for (const email of ["admin@acme.test", "member@acme.test", "newcomer@acme.test"])
      cookies.set(email, await signIn(p, email));
    const me = await p.identity.app.inject({
      method: "GET",
      url: "/api/v1/refresh_token",
      headers: { cookie: cookies.get("admin@acme.test")! },
    });
    orgId = Object.keys(me.json().org_id_to_org_member_info)[0]!;
  });
  afterAll(async () => p?.dispose());

  const backendCall = (opts: InjectOptions, key: string | null = p.identity.ctx.backendApiKey) =>
    p.identity.app.inject({
      ...opts,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...opts.headers },
    });
  const validate = (body: unknown) => backendCall({ method: "POST", url: VALIDATE, payload: body as object });

  async function createKey(email: string, body: Record<string, unknown> = {}) {
    const res = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/api_keys",
      headers: { cookie: cookies.get(email)!, "x-csrf-token": "-.-" },
      payload: { expiration_option: "OneMonth", ...body },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as { api_key_id: string; api_key_token: string };
  }

  const myWorkspace = (headers: Record<string, string>) =>
    p.api.app.inject({ method: "GET", url: "/v1/workspaces/my-workspace", headers });

  it("refuses every backend endpoint without the backend key or with a wrong one", async () => {
    const urls: InjectOptions[] = [
      { method: "GET", url: "/api/v1/token_verification_metadata" },
      { method: "POST", url: VALIDATE, payload: { api_key_token: "x" } },
      { method: "GET", url: `/api/backend/v1/org/${orgId}` },
      { method: "GET", url: `/api/backend/v1/user/org/${orgId}` },
      { method: "GET", url: "/api/backend/v1/user/email?email=admin@acme.test" },
    ];
    for (const opts of urls)
      for (const key of [null, "wrong-key", `${p.identity.ctx.backendApiKey}x`]) {
        const res = await backendCall(opts, key);
        expect(res.statusCode, `${opts.url} ${key}`).toBe(401);
        expect(res.json().error_code).toBe("not_logged_in");
      }
  });

  it("publishes the verifier key that checks access tokens", async () => {
    const res = await backendCall({ method: "GET", url: "/api/v1/token_verification_metadata" });
    expect(res.statusCode).toBe(200);
    const key = await importSPKI(res.json().verifier_key_pem, "RS256");
    const { payload } = await jwtVerify(await accessToken(p, "member@acme.test"), key, { issuer: AUTH });
    expect(payload.email).toBe("member@acme.test");
  });

  it("validates a personal key: user, no org; records last use", async () => {
    const k = await createKey("member@acme.test");
    const res = await validate({ api_key_token: k.api_key_token });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toMatchObject({
      email: "member@acme.test",
      email_confirmed: true,
      enabled: true,
      locked: false,
    });
    expect(body.user_id).toBe(body.user.user_id);
    expect(body.org).toBeUndefined();
    expect(body.user_in_org).toBeUndefined();
    // Last use is written in batches: the next flush writes it.
    await p.identity.ctx.apiKeys.flush();
    const [row] = await p.database.db.select().from(apiKey).where(eq(apiKey.id, k.api_key_id));
    expect(row!.lastUsedAt).toBeInstanceOf(Date);
    expect(row!.tokenHash).not.toContain(k.api_key_token);
  });

  it("validates an org key with org and user_in_org in PropelAuth's field shapes", async () => {
    const k = await createKey("admin@acme.test", { org_id: orgId });
    const body = (await validate({ api_key_token: k.api_key_token })).json();
    expect(body.org_id).toBe(orgId);
    expect(body.org).toEqual({
      org_id: orgId,
      org_name: "Acme AI",
      name: "Acme AI",
      url_safe_org_name: "acme-ai",
      max_users: null,
      is_saml_configured: false,
      can_setup_saml: false,
      metadata: {},
    });
    const memberInfo = "org_id org_name org_metadata url_safe_org_name org_role_structure user_role";
    const roles = "inherited_user_roles_plus_current_role user_permissions additional_roles";
    expect(Object.keys(body.user_in_org).sort()).toEqual(`${memberInfo} ${roles}`.split(" ").sort());
    expect(body.user_in_org.user_role).toBe("Admin");
  });

  it("answers 404 for unknown or tampered tokens and 400 field errors for malformed input, never 500", async () => {
    const k = await createKey("member@acme.test");
    const last = k.api_key_token.at(-1) === "A" ? "B" : "A";
    for (const token of [`${k.api_key_token.slice(0, -1)}${last}`, `eck_${"a".repeat(43)}`]) {
      const res = await validate({ api_key_token: token });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error_code: "not_found" });
    }
    const bad: unknown[] = [
      {},
      { api_key_token: 42 },
      { api_key_token: "" },
      { api_key_token: "garbage" },
      { api_key_token: "x".repeat(10_000) },
      { api_key_token: k.api_key_token, extra: 1 },
      ["not", "an", "object"],
    ];
    for (const body of bad) {
      const res = await validate(body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(res.json().error_code).toBe("invalid_request_fields");
    }
    expect((await validate({ api_key_token: "garbage" })).json().api_key_token).toEqual([
      "Invalid API key format.",
    ]);
    const notJson = await backendCall({
      method: "POST",
      url: VALIDATE,
      headers: { "content-type": "application/json" },
      payload: "{nope",
    });
    expect(notJson.statusCode).toBe(400);
  });

  it("serves x-api-key on my-workspace: 200 for a member, 404 for a user without a workspace", async () => {
    const memberKey = await createKey("member@acme.test");
    const ok = await myWorkspace({ "x-api-key": memberKey.api_key_token });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      name: "Safety Research",
      organization_uuid: orgId,
      organization_name: "Acme AI",
    });
    expect(ok.json().workspace_uuid).toMatch(/^[0-9a-f-]{36}$/);
    const none = await myWorkspace({ "x-api-key": (await createKey("newcomer@acme.test")).api_key_token });
    expect(none.statusCode).toBe(404);
    expect(none.json().error.code).toBe("not_found");
    const byBearer = await myWorkspace({
      authorization: `Bearer ${await accessToken(p, "member@acme.test")}`,
    });
    expect(byBearer.json().name).toBe("Safety Research");
    const orgKey = await createKey("admin@acme.test", { org_id: orgId });
    expect((await myWorkspace({ "x-api-key": orgKey.api_key_token })).json().organization_uuid).toBe(orgId);
    const refused: Record<string, string>[] = [
      {},
      { "x-api-key": "garbage" },
      { "x-api-key": `eck_${"b".repeat(43)}` },
      { "x-api-key": "x".repeat(5000) },
    ];
    for (const headers of refused) {
      const res = await myWorkspace(headers);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe("unauthorized");
    }
  });

  it("keeps account calls bearer-only", async () => {
    const k = await createKey("member@acme.test");
    const res = await p.api.app.inject({
      method: "GET",
      url: "/v1/accounts/me",
      headers: { "x-api-key": k.api_key_token },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toMatch(/bearer/i);
  });

  it("kills keys on delete, expiry, a disabled user, and an org key's creator leaving the org", async () => {
    const db = p.database.db;
    const alive = async (token: string) => (await validate({ api_key_token: token })).statusCode === 200;

    const deleted = await createKey("member@acme.test");
    await p.identity.app.inject({
      method: "DELETE",
      url: `/api/fe/v3/api_keys/${deleted.api_key_id}`,
      headers: { cookie: cookies.get("member@acme.test")!, "x-csrf-token": "-.-" },
    });
    expect(await alive(deleted.api_key_token)).toBe(false);
    expect((await myWorkspace({ "x-api-key": deleted.api_key_token })).statusCode).toBe(401);

    const expired = await createKey("member@acme.test");
    await db
      .update(apiKey)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiKey.id, expired.api_key_id));
    expect(await alive(expired.api_key_token)).toBe(false);

    // A second administrator makes an org key, then leaves; another is banned.
    const leaver = await p.identity.admin.createUser({ email: "leaver@acme.test", password: PASSWORD });
    await p.identity.admin.addMember(orgId, leaver.id, "Admin");
    cookies.set("leaver@acme.test", await signIn(p, "leaver@acme.test"));
    const leaverKey = await createKey("leaver@acme.test", { org_id: orgId });
    const leaverPersonal = await createKey("leaver@acme.test");
    expect(await alive(leaverKey.api_key_token)).toBe(true);
    // Both through identity, as the console does it: validated keys are cached, and these changes
    // drop the user's keys from the cache at once.
    const removed = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/remove_user",
      headers: { cookie: cookies.get("admin@acme.test")!, "x-csrf-token": "-.-" },
      payload: { org_id: orgId, user_id: leaver.id },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await alive(leaverKey.api_key_token)).toBe(false);
    expect(await alive(leaverPersonal.api_key_token)).toBe(true);

    await p.identity.admin.setDisabled(leaver.id, true);
    expect(await alive(leaverPersonal.api_key_token)).toBe(false);
    expect((await myWorkspace({ "x-api-key": leaverPersonal.api_key_token })).statusCode).toBe(401);
  });

  it("serves the product API through the HTTP gateway against a listening identity service", async () => {
    const { address, gateway, api } = await apiOverHttpGateway(p);
    try {
      const me = await api.app.inject({
        method: "GET",
        url: "/v1/accounts/me",
        headers: { authorization: `Bearer ${await accessToken(p, "admin@acme.test")}` },
      });
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ is_admin: true, organization: { name: "Acme AI" } });
      expect(me.json().org_admin_emails).toContain("admin@acme.test");
      const k = await createKey("member@acme.test");
      const ws = await api.app.inject({
        method: "GET",
        url: "/v1/workspaces/my-workspace",
        headers: { "x-api-key": k.api_key_token },
      });
      expect(ws.json()).toMatchObject({ name: "Safety Research", organization_uuid: orgId });
      const org = await createKey("admin@acme.test", { org_id: orgId });
      expect(await gateway.validateApiKey(org.api_key_token)).toMatchObject({
        email: "admin@acme.test",
        org: { org_id: orgId, user_role: "Admin" },
      });
      expect(await gateway.validateApiKey("garbage")).toBeNull();
      expect(await gateway.findOrganization("no-such-org")).toBeNull();

      const wrong = createHttpIdentityGateway({ identityUrl: address, backendApiKey: "wrong", issuer: AUTH });
      await expect(wrong.validateApiKey(k.api_key_token)).rejects.toMatchObject({ status: 503 });
    } finally {
      await api.app.close();
    }
  });

  it("lists an organization's owners and administrators by primary role, in process and over HTTP", async () => {
    const org = await p.identity.admin.createOrganization("Roles Co", `roles-${backend.name.toLowerCase()}`);
    // Stored roles as better-auth keeps them: comma-joined, the first valid one the primary role.
    const stored: [string, string][] = [
      ["zed-owner@roles.test", "owner"],
      ["amy-admin@roles.test", "admin"],
      ["bo-admin@roles.test", "bogus, Admin,member"],
      ["admin-in-name@roles.test", "member"],
      ["cy-member@roles.test", "member,admin"],
    ];
    for (const [email, role] of stored) {
      const u = await p.identity.admin.createUser({ email, password: PASSWORD });
      await p.database.db
        .insert(member)
        .values({ id: `m-${email}`, organizationId: org.id, userId: u.id, role });
    }
    const expected = ["amy-admin@roles.test", "bo-admin@roles.test", "zed-owner@roles.test"];
    // The identity service listens since the test above.
    const overHttp = createHttpIdentityGateway({
      identityUrl: p.identity.app.listeningOrigin,
      backendApiKey: p.identity.ctx.backendApiKey,
      issuer: AUTH,
    });
    for (const gateway of [p.identity.gateway, overHttp]) {
      const admins = await gateway.listOrganizationAdmins(org.id);
      expect(admins.map((u) => u.email)).toEqual(expected);
      expect(admins.map((u) => u.role)).toEqual(["Admin", "Admin", "Owner"]);
      // The same as the whole list's owners and administrators.
      const all = await gateway.listOrganizationUsers(org.id);
      expect(all.filter((u) => u.role !== "Member").map((u) => u.email)).toEqual(expected);
    }
    expect(await p.identity.gateway.listOrganizationAdmins("no-such-org")).toEqual([]);
  });

  it("finds an organization's user by email, in process and over HTTP, and nobody else's", async () => {
    const org = await p.identity.admin.createOrganization(
      "Lookup Co",
      `lookup-${backend.name.toLowerCase()}`,
    );
    const other = await p.identity.admin.createOrganization(
      "Elsewhere",
      `elsewhere-${backend.name.toLowerCase()}`,
    );
    const ann = await p.identity.admin.createUser({ email: "ann@lookup.test", password: PASSWORD });
    const bob = await p.identity.admin.createUser({ email: "bob@elsewhere.test", password: PASSWORD });
    await p.database.db.insert(member).values([
      { id: "m-ann-lookup", organizationId: org.id, userId: ann.id, role: "member,admin" },
      { id: "m-bob-elsewhere", organizationId: other.id, userId: bob.id, role: "admin" },
    ]);
    const overHttp = createHttpIdentityGateway({
      identityUrl: p.identity.app.listeningOrigin,
      backendApiKey: p.identity.ctx.backendApiKey,
      issuer: AUTH,
    });
    for (const gateway of [p.identity.gateway, overHttp]) {
      // As the whole list has them: the same user, role and spelling.
      const listed = (await gateway.listOrganizationUsers(org.id)).find((u) => u.email === "ann@lookup.test");
      expect(listed).toEqual({ user_id: ann.id, email: "ann@lookup.test", role: "Member" });
      expect(await gateway.findOrganizationUser(org.id, "ann@lookup.test")).toEqual(listed);
      expect(await gateway.findOrganizationUser(org.id, "Ann@Lookup.TEST")).toEqual(listed);
      // A user of another organization, an unknown address, an unknown organization.
      expect(await gateway.findOrganizationUser(org.id, "bob@elsewhere.test")).toBeNull();
      expect(await gateway.findOrganizationUser(other.id, "ann@lookup.test")).toBeNull();
      expect(await gateway.findOrganizationUser(org.id, "nobody@lookup.test")).toBeNull();
      expect(await gateway.findOrganizationUser("no-such-org", "ann@lookup.test")).toBeNull();
    }
    // The backend call behind it, in PropelAuth's shape: the organizations only when asked for.
    const byEmail = (query: string) =>
      backendCall({ method: "GET", url: `/api/backend/v1/user/email?${query}` });
    const plain = await byEmail("email=Ann%40Lookup.test");
    expect(plain.statusCode).toBe(200);
    expect(plain.json()).toMatchObject({ user_id: ann.id, email: "ann@lookup.test" });
    expect(plain.json()).not.toHaveProperty("org_id_to_org_info");
    const withOrgs = (await byEmail("email=ann%40lookup.test&include_orgs=true")).json();
    expect(Object.keys(withOrgs.org_id_to_org_info)).toEqual([org.id]);
    expect(withOrgs.org_id_to_org_info[org.id]).toMatchObject({ org_id: org.id, user_role: "Member" });
    for (const query of ["email=nobody%40lookup.test", "email=", `email=${"a".repeat(300)}`]) {
      const missing = await byEmail(query);
      expect(missing.statusCode, query).toBe(404);
      expect(missing.json().error_code).toBe("user_not_found");
    }
  });
});
