import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenVersionCheck, TOKEN_VERSION_TTL_MS } from "../../server/api/token-versions";
import type { Product } from "../../server/app";
import type { IdentityGateway, TokenVersionWatcher } from "../../server/platform/identity-gateway";
import { DEMO_ORG } from "../../server/seed";
import { emailToken } from "./fe-browser";
import {
  AUTH,
  apiOverHttpGateway,
  backends,
  CONSOLE,
  PASSWORD,
  secondProcess,
  signIn,
  startProduct,
  type TestProduct,
} from "./harness";

// Access tokens are checked offline, so before token versions a token outlived the rights it
// carried by up to its 30 minutes. Every change that takes rights away now ends the user's
// existing tokens on /v1: at once in the process that made the change, and within seconds in
// every other API process on the same PostgreSQL (NOTIFY).

const REVOKED = {
  error: { code: "token_revoked", message: expect.stringContaining("revoked") },
};

async function refresh(p: Product, cookie: string): Promise<string> {
  const res = await p.identity.app.inject({
    method: "GET",
    url: "/api/v1/refresh_token",
    headers: { cookie },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().access_token as string;
}

const me = (p: Product, token: string) =>
  p.api.app.inject({ method: "GET", url: "/v1/accounts/me", headers: { authorization: `Bearer ${token}` } });

/** A call of the identity client API, as the console makes it. */
function fe(p: Product, cookie: string, method: "POST" | "DELETE", path: string, body?: unknown) {
  return p.identity.app.inject({
    method,
    url: `/api/fe/v3${path}`,
    headers: { cookie, origin: CONSOLE, "x-csrf-token": "-.-", "content-type": "application/json" },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

describe.each(backends())("access-token revocation on $name", (backend) => {
  let p: TestProduct;
  let orgId: string;
  let owner: { cookie: string };

  /** A new user of the demo organization with `role`, signed in: session cookie and a token. */
  async function newMember(role: "Owner" | "Admin" | "Member") {
    const email = `rv-${randomBytes(4).toString("hex")}@acme.test`;
    const u = await p.identity.admin.createUser({ email, password: PASSWORD });
    await p.identity.admin.addMember(orgId, u.id, role);
    const cookie = await signIn(p, email);
    const token = await refresh(p, cookie);
    expect((await me(p, token)).statusCode).toBe(200);
    return { id: u.id, email, cookie, token };
  }

  async function expectRevoked(token: string) {
    const res = await me(p, token);
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json()).toEqual(REVOKED);
  }

  beforeAll(async () => {
    p = await startProduct(backend);
    const org = await p.identity.admin.findOrganizationBySlug(DEMO_ORG.slug);
    orgId = org?.id ?? "";
    owner = await newMember("Owner");
  }, 120_000);
  afterAll(async () => {
    await p?.dispose();
  });

  it("carries the user's token version in the token", async () => {
    const x = await newMember("Member");
    const claims = JSON.parse(Buffer.from(x.token.split(".")[1] ?? "", "base64url").toString());
    expect(claims.tv).toBe(0);
  });

  it("refuses a token minted before a role change (Admin -> Member) at once; the refreshed one works", async () => {
    const x = await newMember("Admin");
    expect((await me(p, x.token)).json()).toMatchObject({ is_admin: true });
    const changed = await fe(p, owner.cookie, "POST", "/change_role", {
      org_id: orgId,
      user_id: x.id,
      role: "Member",
    });
    expect(changed.statusCode, changed.body).toBe(200);
    await expectRevoked(x.token);
    // Workspace and usage calls refuse it too (every /v1 call with a bearer).
    const list = await p.api.app.inject({
      method: "GET",
      url: "/v1/workspaces/",
      headers: { authorization: `Bearer ${x.token}` },
    });
    expect(list.statusCode).toBe(401);
    const fresh = await refresh(p, x.cookie);
    expect((await me(p, fresh)).json()).toMatchObject({ is_admin: false });
  });

  it("refuses a token after removal from the organization", async () => {
    const x = await newMember("Member");
    const removed = await fe(p, owner.cookie, "POST", "/remove_user", { org_id: orgId, user_id: x.id });
    expect(removed.statusCode, removed.body).toBe(200);
    await expectRevoked(x.token);
  });

  it("refuses a token after the account is deleted", async () => {
    const x = await newMember("Member");
    const deleted = await fe(p, x.cookie, "DELETE", "/delete_me");
    expect(deleted.statusCode, deleted.body).toBe(200);
    await expectRevoked(x.token);
  });

  it("refuses a token after logout (the client's logout and the hosted sign-out form)", async () => {
    const x = await newMember("Member");
    const out = await p.identity.app.inject({
      method: "POST",
      url: "/api/v1/logout",
      headers: {
        cookie: x.cookie,
        origin: CONSOLE,
        "x-csrf-token": "-.-",
        "content-type": "application/json",
      },
    });
    expect(out.statusCode, out.body).toBe(200);
    await expectRevoked(x.token);

    const y = await newMember("Member");
    const form = await p.identity.app.inject({
      method: "POST",
      url: "/logout",
      headers: { cookie: y.cookie, origin: AUTH, "content-type": "application/x-www-form-urlencoded" },
      payload: "",
    });
    expect(form.statusCode, form.body).toBe(303);
    await expectRevoked(y.token);
  });

  it("refuses a token after a password reset and after a password change", async () => {
    const x = await newMember("Member");
    const asked = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/forgot_password",
      headers: { origin: CONSOLE, "x-csrf-token": "-.-", "content-type": "application/json" },
      payload: JSON.stringify({ email: x.email }),
    });
    expect(asked.statusCode, asked.body).toBe(200);
    const token = await emailToken(p, x.email, "reset_password");
    const reset = await p.identity.app.inject({
      method: "POST",
      url: `/reset_password?token=${encodeURIComponent(token)}`,
      headers: { origin: AUTH, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ token, password: "brand-new-pass-1" }).toString(),
    });
    expect(reset.statusCode, reset.body).toBe(200);
    await expectRevoked(x.token);

    const y = await newMember("Member");
    const changed = await fe(p, y.cookie, "POST", "/update_password", {
      current_password: PASSWORD,
      password: "brand-new-pass-2",
    });
    expect(changed.statusCode, changed.body).toBe(200);
    await expectRevoked(y.token);
  });

  it("refuses a disabled user's token; other users' tokens keep working", async () => {
    const x = await newMember("Member");
    const other = await newMember("Member");
    await p.identity.admin.setDisabled(x.id, true);
    await expectRevoked(x.token);
    expect((await me(p, other.token)).statusCode).toBe(200);
  });

  it("counts a token without a version (minted before versions existed) as version 0", async () => {
    const x = await newMember("Member");
    const user = await p.identity.ctx.directory.findUser(x.id);
    if (!user) throw new Error("no user");
    const memberships = await p.identity.ctx.directory.listMemberships(x.id);
    const legacy = (
      await p.identity.ctx.tokens.authResponse(
        { ...user, tokenVersion: undefined as unknown as number },
        memberships,
      )
    ).access_token;
    expect(JSON.parse(Buffer.from(legacy.split(".")[1] ?? "", "base64url").toString()).tv).toBeUndefined();
    expect((await me(p, legacy)).statusCode).toBe(200);
    await fe(p, owner.cookie, "POST", "/remove_user", { org_id: orgId, user_id: x.id });
    await expectRevoked(legacy);
  });

  it("answers the token version over the backend API, and the HTTP gateway refuses too", async () => {
    const { gateway, api } = await apiOverHttpGateway(p);
    try {
      const x = await newMember("Admin");
      expect(await gateway.tokenVersion(x.id)).toBe(0);
      expect(await gateway.tokenVersion("no-such-user")).toBeNull();
      const call = () =>
        api.app.inject({
          method: "GET",
          url: "/v1/accounts/me",
          headers: { authorization: `Bearer ${x.token}` },
        });
      expect((await call()).statusCode).toBe(200);
      await fe(p, owner.cookie, "POST", "/change_role", { org_id: orgId, user_id: x.id, role: "Member" });
      expect(await gateway.tokenVersion(x.id)).toBe(1);
      // A separate identity host has no way to tell this API at once: the cached version expires.
      const started = Date.now();
      let res = await call();
      while (res.statusCode === 200 && Date.now() - started < 5000) {
        await new Promise((r) => setTimeout(r, 50));
        res = await call();
      }
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(REVOKED);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await api.app.close();
    }
  });

  it.runIf(backend.name === "postgres")(
    "refuses within seconds in another API process on the same PostgreSQL (NOTIFY)",
    async () => {
      // A second product (identity + API) on the same database, as a second server process
      // behind a load balancer would be.
      const other = await secondProcess(p);
      try {
        for (const [what, revoke] of [
          [
            "role change",
            (id: string) => ({ path: "/change_role", body: { org_id: orgId, user_id: id, role: "Member" } }),
          ],
          ["removal", (id: string) => ({ path: "/remove_user", body: { org_id: orgId, user_id: id } })],
        ] as const) {
          const x = await newMember("Admin");
          // The other process has seen (and cached) the token's version.
          expect((await me(other, x.token)).statusCode).toBe(200);
          expect((await me(other, x.token)).statusCode).toBe(200);
          const { path, body } = revoke(x.id);
          const done = await fe(p, owner.cookie, "POST", path, body);
          expect(done.statusCode, done.body).toBe(200);
          const started = Date.now();
          let status = 200;
          while (Date.now() - started < 5000) {
            status = (await me(other, x.token)).statusCode;
            if (status === 401) break;
            await new Promise((r) => setTimeout(r, 25));
          }
          const took = Date.now() - started;
          expect(status, what).toBe(401);
          // Well within the versions' cache lifetime (3 s): the notification did it, not expiry.
          expect(took, what).toBeLessThan(2000);
        }
      } finally {
        await other.close();
      }
    },
    60_000,
  );
});

describe("token-version cache", () => {
  function fakeGateway(versions: Map<string, number | null>) {
    let watcher: TokenVersionWatcher | null = null;
    const gateway = {
      calls: 0,
      tokenVersion: async (userId: string) => {
        gateway.calls++;
        return versions.get(userId) ?? null;
      },
      watchTokenVersions: (h: TokenVersionWatcher) => {
        watcher = h;
        return async () => {
          watcher = null;
        };
      },
      changed: (userId: string) => watcher?.changed(userId),
    };
    return gateway;
  }

  it("asks identity once per user within its lifetime, again after a change is heard", async () => {
    const versions = new Map<string, number | null>([["u", 2]]);
    const g = fakeGateway(versions);
    const check = createTokenVersionCheck(g as unknown as IdentityGateway, 60_000);
    expect(await check.check("u", 2)).toBe(true);
    expect(check.check("u", 2)).toBe(true); // a plain boolean on a cache hit
    expect(check.check("u", 1)).toBe(false);
    expect(g.calls).toBe(1);
    versions.set("u", 3);
    expect(check.check("u", 2)).toBe(true); // not heard yet: the cached version stands
    g.changed("u");
    expect(await check.check("u", 2)).toBe(false);
    expect(g.calls).toBe(2);
    await check.close();
  });

  it("asks again for a token newer than the cached version, and refuses unknown users", async () => {
    const versions = new Map<string, number | null>([["u", 0]]);
    const g = fakeGateway(versions);
    const check = createTokenVersionCheck(g as unknown as IdentityGateway, 60_000);
    expect(await check.check("u", 0)).toBe(true);
    versions.set("u", 1); // bumped elsewhere, and the user already refreshed
    expect(await check.check("u", 1)).toBe(true);
    expect(check.check("u", 0)).toBe(false);
    expect(await check.check("nobody", 0)).toBe(false);
    await check.close();
  });

  it("expires cached versions after its lifetime", async () => {
    const versions = new Map<string, number | null>([["u", 0]]);
    const g = fakeGateway(versions);
    const check = createTokenVersionCheck(g as unknown as IdentityGateway, 50);
    expect(await check.check("u", 0)).toBe(true);
    versions.set("u", 1);
    await new Promise((r) => setTimeout(r, 80));
    expect(await check.check("u", 0)).toBe(false);
    expect(TOKEN_VERSION_TTL_MS).toBeLessThanOrEqual(4000);
    await check.close();
  });
});
