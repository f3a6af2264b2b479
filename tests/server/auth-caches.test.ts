import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Product } from "../../server/app";
import { apiKey } from "../../server/db/schema";
import { createApiKeyService } from "../../server/identity/api-keys/service";
import { createApiKeyValidation } from "../../server/identity/api-keys/validation-cache";
import { DEMO_ORG } from "../../server/seed";
import {
  accessToken,
  backends,
  createOrgApiKey,
  PASSWORD,
  secondProcess,
  signIn,
  startProduct,
  type TestProduct,
} from "./harness";

// The product API keeps verified tokens, validated API keys and each organization's workspaces
// in memory. What a change takes away must still go at once in the process that made it, and
// within 5 s in every other API process on the same PostgreSQL database.

const WITHIN_MS = 5000;

/** Calls `call` until it answers `status` or WITHIN_MS pass; the last status seen. */
async function eventually(call: () => Promise<{ statusCode: number }>, status: number): Promise<number> {
  const started = Date.now();
  let last = (await call()).statusCode;
  while (last !== status && Date.now() - started < WITHIN_MS) {
    await new Promise((r) => setTimeout(r, 50));
    last = (await call()).statusCode;
  }
  return last;
}

describe.each(backends())("authentication and workspace caches on $name", (backend) => {
  let p: TestProduct;
  let orgId: string;
  let adminCookie: string;
  let admin: string;

  const get = (q: Product, url: string, headers: Record<string, string>) =>
    q.api.app.inject({ method: "GET", url, headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  const newKey = () => createOrgApiKey(p, adminCookie, orgId);

  async function deleteKey(id: string) {
    const res = await p.identity.app.inject({
      method: "DELETE",
      url: `/api/fe/v3/api_keys/${id}`,
      headers: { cookie: adminCookie, "x-csrf-token": "-.-" },
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  async function newWorkspace(): Promise<string> {
    const res = await p.api.app.inject({
      method: "POST",
      url: "/v1/workspaces/",
      headers: bearer(admin),
      payload: { organization_uuid: orgId, name: `cache-${randomBytes(4).toString("hex")}` },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().workspace_uuid;
  }

  /** A new Member of the demo organization who belongs to `workspace`: their access token. */
  async function newWorkspaceMember(workspace: string) {
    const email = `cache-${randomBytes(4).toString("hex")}@acme.test`;
    const u = await p.identity.admin.createUser({ email, password: PASSWORD });
    await p.identity.admin.addMember(orgId, u.id, "Member");
    const added = await p.api.app.inject({
      method: "POST",
      url: `/v1/workspaces/${workspace}/members?user_email=${encodeURIComponent(email)}`,
      headers: bearer(admin),
    });
    expect(added.statusCode, added.body).toBe(201);
    return { email, token: await accessToken(p, email) };
  }

  const names = async (q: Product, headers: Record<string, string>) =>
    ((await get(q, "/v1/workspaces/", headers)).json() as { workspace_uuid: string }[]).map(
      (w) => w.workspace_uuid,
    );

  beforeAll(async () => {
    p = await startProduct(backend);
    orgId = (await p.identity.admin.findOrganizationBySlug(DEMO_ORG.slug))?.id ?? "";
    adminCookie = await signIn(p, "admin@acme.test");
    admin = await accessToken(p, "admin@acme.test");
  }, 120_000);
  afterAll(async () => p?.dispose());

  it("refuses a deleted API key on the very next call, though it was just validated", async () => {
    const key = await newKey();
    expect((await get(p, "/v1/workspaces/", { "x-api-key": key.token })).statusCode).toBe(200);
    expect((await get(p, "/v1/workspaces/", { "x-api-key": key.token })).statusCode).toBe(200);
    await deleteKey(key.id);
    expect((await get(p, "/v1/workspaces/", { "x-api-key": key.token })).statusCode).toBe(401);
  });

  it("records the key's last use in a batch, written on the next flush", async () => {
    const key = await newKey();
    const lastUsed = async () =>
      (await p.database.db.select().from(apiKey).where(eq(apiKey.id, key.id)))[0]?.lastUsedAt ?? null;
    expect(await lastUsed()).toBeNull();
    expect((await get(p, "/v1/workspaces/", { "x-api-key": key.token })).statusCode).toBe(200);
    await p.identity.ctx.apiKeys.flush();
    expect(await lastUsed()).toBeInstanceOf(Date);
  });

  it("writes pending last-use times when it closes", async () => {
    const key = await newKey();
    const validation = createApiKeyValidation(
      p.database.db,
      createApiKeyService(p.database.db, p.identity.ctx.directory).validate,
      { flushMs: 3_600_000 },
    );
    expect((await validation.validate(key.token))?.apiKeyId).toBe(key.id);
    await validation.close();
    const [row] = await p.database.db.select().from(apiKey).where(eq(apiKey.id, key.id));
    expect(row?.lastUsedAt).toBeInstanceOf(Date);
  });

  it("refuses a verified (remembered) bearer token once it has expired", async () => {
    const token = await accessToken(p, "member@acme.test");
    expect((await get(p, "/v1/accounts/me", bearer(token))).statusCode).toBe(200);
    const exp = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()).exp as number;
    vi.useFakeTimers({ toFake: ["Date"], now: exp * 1000 + 1000 });
    try {
      const res = await get(p, "/v1/accounts/me", bearer(token));
      expect(res.statusCode).toBe(401);
      expect(res.json().error.message).toMatch(/expired/);
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows a new workspace and hides a deleted one at once, after the list was read", async () => {
    const before = await names(p, bearer(admin));
    const ws = await newWorkspace();
    expect(await names(p, bearer(admin))).toEqual(expect.arrayContaining([...before, ws]));
    const del = await p.api.app.inject({
      method: "DELETE",
      url: `/v1/workspaces/${ws}`,
      headers: bearer(admin),
    });
    expect(del.statusCode).toBe(204);
    expect(await names(p, bearer(admin))).not.toContain(ws);
    expect((await get(p, `/v1/workspaces/${ws}`, bearer(admin))).statusCode).toBe(404);
  });

  it("refuses a removed workspace member at once, after their membership was read", async () => {
    const ws = await newWorkspace();
    const m = await newWorkspaceMember(ws);
    expect((await get(p, `/v1/workspaces/${ws}`, bearer(m.token))).statusCode).toBe(200);
    const removed = await p.api.app.inject({
      method: "DELETE",
      url: `/v1/workspaces/${ws}/members/${encodeURIComponent(m.email)}`,
      headers: bearer(admin),
    });
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await get(p, `/v1/workspaces/${ws}`, bearer(m.token))).statusCode).toBe(404);
  });

  it("shows an organization's new name at once, after the list was read", async () => {
    const orgName = async () =>
      ((await get(p, "/v1/workspaces/", bearer(admin))).json() as { organization_name: string }[])[0]
        ?.organization_name;
    const was = await orgName();
    const rename = (name: string) =>
      p.identity.app.inject({
        method: "POST",
        url: "/api/fe/v3/update_org_metadata",
        headers: { cookie: adminCookie, "x-csrf-token": "-.-" },
        payload: { org_id: orgId, name },
      });
    expect((await rename("Acme Renamed")).statusCode).toBe(200);
    try {
      expect(await orgName()).toBe("Acme Renamed");
    } finally {
      await rename(was ?? "Acme AI");
    }
  });

  it.runIf(backend.name === "postgres")(
    "tells another API process on the same database: deleted keys, workspaces and removed members go within 5 s",
    async () => {
      const other = await secondProcess(p);
      try {
        // The other process has validated the key, listed the workspaces and seen the membership.
        const key = await newKey();
        const ws = await newWorkspace();
        const m = await newWorkspaceMember(ws);
        const keyCall = () => get(other, "/v1/workspaces/", { "x-api-key": key.token });
        const memberCall = () => get(other, `/v1/workspaces/${ws}`, bearer(m.token));
        expect((await keyCall()).statusCode).toBe(200);
        expect(await names(other, bearer(admin))).toContain(ws);
        expect((await memberCall()).statusCode).toBe(200);

        await deleteKey(key.id);
        expect(await eventually(keyCall, 401)).toBe(401);

        const removed = await p.api.app.inject({
          method: "DELETE",
          url: `/v1/workspaces/${ws}/members/${encodeURIComponent(m.email)}`,
          headers: bearer(admin),
        });
        expect(removed.statusCode).toBe(204);
        expect(await eventually(memberCall, 404)).toBe(404);

        const del = await p.api.app.inject({
          method: "DELETE",
          url: `/v1/workspaces/${ws}`,
          headers: bearer(admin),
        });
        expect(del.statusCode).toBe(204);
        expect(await eventually(() => get(other, `/v1/workspaces/${ws}`, bearer(admin)), 404)).toBe(404);
        expect(await names(other, bearer(admin))).not.toContain(ws);
      } finally {
        await other.close();
      }
    },
    60_000,
  );
});
