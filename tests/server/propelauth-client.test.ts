// @vitest-environment jsdom
// The unmodified @propelauth/javascript browser client against our identity service over real
// HTTP: refresh, role and permission helpers, org-scoped tokens, and logout.
import { Blob as NodeBlob, File as NodeFile } from "node:buffer";
import { createClient } from "@propelauth/javascript";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organization } from "../../server/db/schema";
import { Browser, listen } from "./fe-browser";
import { backends, PASSWORD, startProduct, type TestProduct } from "./harness";

describe.each(backends())("@propelauth/javascript against the identity service on $name", (backend) => {
  let p: TestProduct;
  let origin: string;
  let acmeId: string;
  beforeAll(async () => {
    // The embedded database reads its extensions (pg_trgm) through File/Blob; jsdom's versions
    // lack arrayBuffer(), and the client under test does not need them.
    Object.assign(globalThis, { Blob: NodeBlob, File: NodeFile });
    // Each Browser gives its address in X-Forwarded-For, through the test's loopback "proxy".
    p = await startProduct(backend, { TRUST_PROXY: "loopback" });
    origin = await listen(p);
    const [acme] = await p.database.db.select().from(organization).where(eq(organization.slug, "acme-ai"));
    acmeId = acme!.id;
  });
  afterAll(async () => p?.dispose());

  /** Signs in through the hosted form in a browser whose cookies the client then uses. */
  async function signedInClient(email: string) {
    const b = new Browser(origin);
    const res = await b.fetch(`${origin}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password: PASSWORD }),
    });
    expect(res.status).toBe(303);
    globalThis.fetch = b.fetch as typeof fetch;
    const client = createClient({ authUrl: origin, enableBackgroundTokenRefresh: false });
    return { b, client };
  }

  it("refreshes, and the role and permission helpers answer for an Admin", async () => {
    const { client } = await signedInClient("admin@acme.test");
    const info = await client.getAuthenticationInfoOrNull();
    expect(info?.user.email).toBe("admin@acme.test");
    expect(info?.orgHelper.getOrgByName("Acme AI")?.orgId).toBe(acmeId);
    const access = info!.accessHelper;
    expect(access.isRole(acmeId, "Admin")).toBe(true);
    expect(access.isRole(acmeId, "Member")).toBe(false);
    expect(access.isAtLeastRole(acmeId, "Member")).toBe(true);
    expect(access.isAtLeastRole(acmeId, "Admin")).toBe(true);
    expect(access.isAtLeastRole(acmeId, "Owner")).toBe(false);
    expect(access.hasPermission(acmeId, "propelauth::can_invite")).toBe(true);
    expect(access.hasPermission(acmeId, "propelauth::can_delete_org")).toBe(false);
    expect(access.hasAllPermissions(acmeId, ["propelauth::can_invite", "eval::can_manage_workspaces"])).toBe(
      true,
    );
    expect(access.hasAllPermissions(acmeId, ["propelauth::can_invite", "propelauth::can_delete_org"])).toBe(
      false,
    );
    client.destroy();
  });

  it("answers the helpers for a Member, scopes org tokens, and maps a foreign org to user_not_in_org", async () => {
    const { client } = await signedInClient("member@acme.test");
    const info = await client.getAuthenticationInfoOrNull();
    const access = info!.accessHelper;
    expect(access.isRole(acmeId, "Member")).toBe(true);
    expect(access.isAtLeastRole(acmeId, "Admin")).toBe(false);
    expect(access.hasPermission(acmeId, "propelauth::can_invite")).toBe(false);
    const scoped = await client.getAccessTokenForOrg(acmeId);
    expect(scoped.error).toBeUndefined();
    const claims = JSON.parse(Buffer.from(scoped.accessToken!.split(".")[1]!, "base64url").toString());
    expect(claims.org_member_info).toMatchObject({ org_id: acmeId, user_role: "Member" });
    expect(await client.getAccessTokenForOrg("not-my-org")).toEqual({
      error: "user_not_in_org",
      accessToken: null,
    });
    client.destroy();
  });

  it("logs out: the session ends and the next refresh is logged out", async () => {
    const { b, client } = await signedInClient("newcomer@acme.test");
    expect(await client.getAuthenticationInfoOrNull()).not.toBeNull();
    await client.logout(false);
    expect(await client.getAuthenticationInfoOrNull(true)).toBeNull();
    expect((await b.refresh()).status).toBe(401);
    client.destroy();
  });
});
