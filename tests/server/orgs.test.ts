import type { AddressInfo } from "node:net";
import { createFrontendApisClient } from "@propelauth/frontend-apis";
import { and, asc, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emailOutbox, invitation, member, organization, user } from "../../server/db/schema";
import { INVITES_PER_ORG, inviteLimitKey, MAX_ORGS_PER_USER } from "../../server/identity/orgs/limits";
import { AUTH, backends, CONSOLE, cookieHeader, PASSWORD, startProduct, type TestProduct } from "./harness";

// The organization calls driven by the unmodified public identity client over real HTTP on
// loopback. The client calls the global fetch; ours adds the acting user's session cookie.
// Hosted form posts carry the Origin a browser sends from the identity service's own pages.

type Jar = { cookie: string };
const realFetch = globalThis.fetch;
let acting: Jar | null = null;

/** The success body of a client call (fails the test with the error otherwise). */
function ok<T>(r: { ok: true; data: T } | { ok: false; error?: unknown }): T {
  if (!r.ok) throw new Error(`call failed: ${JSON.stringify(r.error)}`);
  return r.data;
}

describe.each(backends())("organizations on $name", (backend) => {
  let p: TestProduct;
  let base = "";
  let api: ReturnType<typeof createFrontendApisClient>;
  const jars = new Map<string, Jar>();
  let acme = "";
  let beta = "";

  /** The client, acting as `email` (signed in over HTTP on first use). */
  const as = async (email: string | null) => {
    if (email === null) {
      acting = null;
      return api;
    }
    let jar = jars.get(email);
    if (!jar) {
      const res = await realFetch(`${base}/login`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
        body: new URLSearchParams({ email, password: PASSWORD }),
      });
      expect(res.status, `sign-in of ${email}`).toBe(303);
      jar = { cookie: cookieHeader(res.headers.getSetCookie()) };
      jars.set(email, jar);
    }
    acting = jar;
    return api;
  };
  const code = (r: { ok: boolean; error?: unknown }) =>
    r.ok ? "ok" : (r.error as { error_code: string }).error_code;
  const refresh = async (email: string) => {
    await as(email);
    const res = await fetch(`${base}/api/v1/refresh_token`);
    return (await res.json()) as { org_id_to_org_member_info: Record<string, Record<string, unknown>> };
  };
  const raw = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/fe/v3${path}`, {
      method,
      headers: { "content-type": "application/json", "x-csrf-token": "-.-", ...headers },
      body,
    });
  const newUser = (email: string) => p.identity.admin.createUser({ email, password: PASSWORD });
  const db = () => p.identity.ctx.db;
  const lastInviteLink = async (to: string) => {
    const [mail] = await db()
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.to, to), eq(emailOutbox.kind, "invitation")))
      .orderBy(desc(emailOutbox.createdAt))
      .limit(1);
    const m = mail?.text.match(/https?:\/\/\S+\/accept_invite\?id=[0-9a-f-]+/);
    return m ? new URL(m[0]) : null;
  };
  /** Everything the organization calls could change, to prove a refused call changed nothing. */
  const snapshot = async () => ({
    orgs: await db().select().from(organization).orderBy(asc(organization.id)),
    members: await db().select().from(member).orderBy(asc(member.id)),
    invites: await db().select().from(invitation).orderBy(asc(invitation.id)),
  });

  beforeAll(async () => {
    p = await startProduct(backend);
    await p.identity.app.listen({ port: 0, host: "127.0.0.1" });
    base = `http://127.0.0.1:${(p.identity.app.server.address() as AddressInfo).port}`;
    api = createFrontendApisClient({ authUrl: base, baseApiUrl: base });
    globalThis.fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      if (acting?.cookie) headers.set("cookie", acting.cookie);
      return realFetch(input, { ...init, headers });
    };
    const info = await refresh("admin@acme.test");
    acme = Object.keys(info.org_id_to_org_member_info)[0] ?? "";
    for (const u of ["owner@betacorp.test", "admin@betacorp.test", "erin@betacorp.test", "solo@gmail.com"])
      await newUser(u);
  });
  afterAll(async () => {
    globalThis.fetch = realFetch;
    await p?.dispose();
  });

  it("creates an organization with its creator as Owner, and refuses personal domains", async () => {
    const c = await as("owner@betacorp.test");
    const res = await c.createOrg({ name: "Beta Corp", allow_users_to_join_by_domain: true });
    expect(res.ok).toBe(true);
    const created = ok(res);
    expect(created.first_org).toBe(true);
    beta = created.org_id;
    const info = (await refresh("owner@betacorp.test")).org_id_to_org_member_info[beta];
    expect(info).toMatchObject({ org_name: "Beta Corp", url_safe_org_name: "beta-corp", user_role: "Owner" });
    expect(info?.inherited_user_roles_plus_current_role).toEqual(["Owner", "Admin", "Member"]);

    const g = await as("solo@gmail.com");
    expect(code(await g.createOrg({ name: "Solo", restrict_invites_by_domain: true }))).toBe(
      "personal_domain_error",
    );
    expect(code(await g.createOrg({ name: "Solo", allow_users_to_join_by_domain: true }))).toBe(
      "personal_domain_error",
    );
    expect(code(await g.createOrg({ name: "Solo" }))).toBe("ok");
    const settings = await g.fetchOrgSettings(
      Object.keys((await refresh("solo@gmail.com")).org_id_to_org_member_info)[0] ?? "",
    );
    expect(ok(settings)).toMatchObject({
      existing_domain: null,
      current_user_domain_is_personal: true,
      can_setup_saml: false,
    });
  });

  it("treats every free-mail domain of the maintained list as personal, not only the big ones", async () => {
    for (const email of ["ana@t-online.de", "bo@yahoo.fr", "cy@gmx.at"]) {
      await newUser(email);
      const c = await as(email);
      expect(code(await c.createOrg({ name: "Mine", restrict_invites_by_domain: true }))).toBe(
        "personal_domain_error",
      );
      expect(code(await c.createOrg({ name: "Mine", allow_users_to_join_by_domain: true }))).toBe(
        "personal_domain_error",
      );
    }
  });

  it("stops creating organizations beyond the per-user limit", async () => {
    await newUser("many@orgs.test");
    const c = await as("many@orgs.test");
    for (let i = 0; i < MAX_ORGS_PER_USER; i++)
      expect(code(await c.createOrg({ name: `Many ${i}` }))).toBe("ok");
    expect(code(await c.createOrg({ name: "One too many" }))).toBe("user_max_orgs_limit_exceeded");
  });

  it("invites by email, the invitee accepts, changes role and is removed", async () => {
    const c = await as("owner@betacorp.test");
    expect(
      code(await c.inviteUserToOrg({ org_id: beta, email: "Carol@BetaCorp.test", role: "Member" })),
    ).toBe("ok");
    const link = await lastInviteLink("carol@betacorp.test");
    expect(link?.pathname).toBe("/accept_invite");
    const pending = await c.fetchPendingOrgInvites(beta);
    expect(ok(pending).pending_invites).toEqual([
      expect.objectContaining({ email: "carol@betacorp.test", role: "Member", additional_roles: [] }),
    ]);

    // The invitee has no account: the page sends them to sign up and back.
    const here = `${base}${link?.pathname}${link?.search}`;
    const anon = await realFetch(here);
    expect(await anon.text()).toContain("Create an account");
    const signup = await realFetch(`${base}/signup`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
      body: new URLSearchParams({ email: "carol@betacorp.test", password: PASSWORD, first_name: "Carol" }),
    });
    // A new account confirms its address from the email; the confirmation signs it in.
    expect(signup.status).toBe(200);
    const [confirm] = await db()
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.to, "carol@betacorp.test"), eq(emailOutbox.kind, "confirm_email")));
    const confirmUrl = new URL(confirm?.text.match(/https?:\/\/\S+\/confirm_email\?\S+/)?.[0] ?? "");
    const confirmed = await realFetch(`${base}${confirmUrl.pathname}${confirmUrl.search}`, {
      redirect: "manual",
      headers: { cookie: cookieHeader(signup.headers.getSetCookie()) },
    });
    expect(confirmed.status).toBe(303);
    const carol = { cookie: cookieHeader(confirmed.headers.getSetCookie()) };
    jars.set("carol@betacorp.test", carol);
    expect(await (await realFetch(here, { headers: { cookie: carol.cookie } })).text()).toContain(
      "Accept invitation",
    );
    // Somebody else signed in can't use Carol's invitation.
    const stranger = await realFetch(here, {
      method: "POST",
      redirect: "manual",
      headers: { origin: AUTH, cookie: jars.get("admin@acme.test")?.cookie ?? "" },
    });
    expect(stranger.status).toBe(403);
    const accepted = await realFetch(here, {
      method: "POST",
      redirect: "manual",
      headers: { origin: AUTH, cookie: carol.cookie },
    });
    expect(accepted.status).toBe(303);
    const carolId = (await p.identity.admin.findUserByEmail("carol@betacorp.test"))?.id ?? "";
    expect((await refresh("carol@betacorp.test")).org_id_to_org_member_info[beta]).toMatchObject({
      user_role: "Member",
    });
    expect(ok(await (await as("owner@betacorp.test")).fetchPendingOrgInvites(beta))?.total_count).toBe(0);
    const again = await realFetch(here, {
      method: "POST",
      redirect: "manual",
      headers: { origin: AUTH, cookie: carol.cookie },
    });
    expect(again.status).toBe(404);

    expect(code(await c.updateUserRoleInOrg({ org_id: beta, user_id: carolId, role: "Admin" }))).toBe("ok");
    const info = (await refresh("carol@betacorp.test")).org_id_to_org_member_info[beta];
    expect(info).toMatchObject({ user_role: "Admin", org_role_structure: "single_role_in_hierarchy" });
    expect(info?.inherited_user_roles_plus_current_role).toEqual(["Admin", "Member"]);
    expect(info?.user_permissions).toContain("propelauth::can_invite");

    await as("owner@betacorp.test");
    expect(code(await c.removeUserFromOrg({ org_id: beta, user_id: carolId }))).toBe("ok");
    expect((await refresh("carol@betacorp.test")).org_id_to_org_member_info[beta]).toBeUndefined();
    await as("owner@betacorp.test");
    expect(code(await c.removeUserFromOrg({ org_id: beta, user_id: carolId }))).toBe("user_not_found");
  });

  it("lists pending and expired invitations apart, with paging and email search", async () => {
    const c = await as("owner@betacorp.test");
    for (const n of [1, 2, 3, 4, 5])
      expect(
        code(await c.inviteUserToOrg({ org_id: beta, email: `pager${n}@betacorp.test`, role: "Member" })),
      ).toBe("ok");
    for (const n of [4, 5])
      await db()
        .update(invitation)
        .set({ expiresAt: new Date(Date.now() - 60_000) })
        .where(eq(invitation.email, `pager${n}@betacorp.test`));
    const first = ok(await c.fetchPendingOrgInvites(beta, { page_size: 2, email_search: "pager" }));
    expect(first).toMatchObject({ total_count: 3, page_number: 0, page_size: 2, has_more_results: true });
    expect(first?.pending_invites.map((i) => i.email)).toEqual([
      "pager1@betacorp.test",
      "pager2@betacorp.test",
    ]);
    const second = ok(
      await c.fetchPendingOrgInvites(beta, { page_size: 2, page_number: 1, email_search: "pager" }),
    );
    expect(second?.pending_invites.map((i) => i.email)).toEqual(["pager3@betacorp.test"]);
    expect(second?.has_more_results).toBe(false);
    const expired = ok(await c.fetchExpiredOrgInvites(beta));
    expect(expired?.expired_invites.map((i) => i.email)).toEqual([
      "pager4@betacorp.test",
      "pager5@betacorp.test",
    ]);
    expect(ok(await c.fetchExpiredOrgInvites(beta, { email_search: "PAGER5" }))?.total_count).toBe(1);
    // LIKE wildcards are searched literally.
    expect(ok(await c.fetchPendingOrgInvites(beta, { email_search: "%" }))?.total_count).toBe(0);
    expect(code(await c.revokeUserOrgInvitation({ org_id: beta, email: "pager5@betacorp.test" }))).toBe("ok");
    expect(code(await c.revokeUserOrgInvitation({ org_id: beta, email: "pager1@betacorp.test" }))).toBe("ok");
    expect(ok(await c.fetchExpiredOrgInvites(beta))?.total_count).toBe(1);
    expect(ok(await c.fetchPendingOrgInvites(beta, { email_search: "pager" }))?.total_count).toBe(2);
    expect(code(await c.revokeUserOrgInvitation({ org_id: beta, email: "pager1@betacorp.test" }))).toBe(
      "invalid_request_fields",
    );
    const members = ok(await c.fetchOrgMembers(beta, { page_size: 1 }));
    expect(members).toMatchObject({ total_count: 1, has_more_results: false });
    expect(members?.users[0]).toMatchObject({
      email: "owner@betacorp.test",
      first_name: null,
      last_name: null,
      role: "Owner",
      can_be_deleted: false,
    });
    // Last active is the owner's session, signed in during this test (epoch seconds).
    const lastActive = (members?.users[0] as { last_active_at?: number } | undefined)?.last_active_at ?? 0;
    expect(Math.abs(lastActive - Date.now() / 1000)).toBeLessThan(600);
  });

  it("joins by confirmed email domain and lists joinable organizations", async () => {
    const e = await as("erin@betacorp.test");
    expect(ok(await e.fetchJoinableOrgs())?.orgs).toEqual([{ id: beta, name: "Beta Corp" }]);
    expect(ok(await (await as("solo@gmail.com")).fetchJoinableOrgs())?.orgs).toEqual([]);
    expect(code(await (await as("admin@acme.test")).joinOrg(beta))).toBe("org_not_found");
    expect(code(await (await as("erin@betacorp.test")).joinOrg(acme))).toBe("org_not_found");
    const joined = await e.joinOrg(beta);
    expect(ok(joined)).toEqual({ org_id: beta, first_org: true });
    expect((await refresh("erin@betacorp.test")).org_id_to_org_member_info[beta]).toMatchObject({
      user_role: "Member",
    });
    expect(ok(await (await as("erin@betacorp.test")).fetchJoinableOrgs())?.orgs).toEqual([]);
    // An address that is not confirmed (any more) can't join by domain or create organizations.
    await newUser("fresh@betacorp.test");
    await as("fresh@betacorp.test");
    await db().update(user).set({ emailVerified: false }).where(eq(user.email, "fresh@betacorp.test"));
    const f = await as("fresh@betacorp.test");
    expect(ok(await f.fetchJoinableOrgs())?.orgs).toEqual([]);
    expect(code(await f.joinOrg(beta))).toBe("email_not_confirmed");
    expect(code(await f.createOrg({ name: "Fresh" }))).toBe("email_not_confirmed");
  });

  it("keeps roles in order: no role above your own, no touching Owners, one Owner at least", async () => {
    const o = await as("owner@betacorp.test");
    const adminId = (await p.identity.admin.findUserByEmail("admin@betacorp.test"))?.id ?? "";
    const ownerId = (await p.identity.admin.findUserByEmail("owner@betacorp.test"))?.id ?? "";
    const erinId = (await p.identity.admin.findUserByEmail("erin@betacorp.test"))?.id ?? "";
    await p.identity.admin.addMember(beta, adminId, "Admin");
    const a = await as("admin@betacorp.test");
    expect(code(await a.inviteUserToOrg({ org_id: beta, email: "boss@betacorp.test", role: "Owner" }))).toBe(
      "action_forbidden",
    );
    expect(code(await a.updateUserRoleInOrg({ org_id: beta, user_id: ownerId, role: "Member" }))).toBe(
      "action_forbidden",
    );
    expect(code(await a.updateUserRoleInOrg({ org_id: beta, user_id: erinId, role: "Owner" }))).toBe(
      "action_forbidden",
    );
    expect(code(await a.removeUserFromOrg({ org_id: beta, user_id: ownerId }))).toBe("action_forbidden");
    expect(code(await a.deleteOrg(beta))).toBe("action_forbidden");
    expect(
      code(
        await a.updateUserRoleInOrg({
          org_id: beta,
          user_id: erinId,
          role: "Admin",
          additional_roles: ["Member"],
        }),
      ),
    ).toBe("invalid_request_fields");
    expect(code(await a.updateUserRoleInOrg({ org_id: beta, user_id: erinId, role: "Emperor" }))).toBe(
      "invalid_request_fields",
    );
    const e = await as("erin@betacorp.test");
    expect(code(await e.inviteUserToOrg({ org_id: beta, email: "x@betacorp.test", role: "Member" }))).toBe(
      "action_forbidden",
    );
    expect(code(await e.removeUserFromOrg({ org_id: beta, user_id: adminId }))).toBe("action_forbidden");
    expect(
      ok(await e.fetchOrgMembers(beta))?.users.every(
        (u) => u.possible_roles.length === 0 && !u.can_be_deleted,
      ),
    ).toBe(true);
    const last = await (await as("owner@betacorp.test")).removeUserFromOrg({
      org_id: beta,
      user_id: ownerId,
    });
    expect(code(last)).toBe("invalid_request_fields");
    const lastError = (last as { error?: { field_errors?: Record<string, string> } }).error;
    expect(lastError?.field_errors?.org_id).toBeTruthy();
    expect(code(await o.updateUserRoleInOrg({ org_id: beta, user_id: ownerId, role: "Admin" }))).toBe(
      "invalid_request_fields",
    );
    expect(code(await o.inviteUserToOrg({ org_id: beta, email: "erin@betacorp.test", role: "Member" }))).toBe(
      "action_already_complete",
    );
  });

  it("gives multi_role organizations additional roles, reported in the refresh response", async () => {
    const o = await as("owner@betacorp.test");
    const erinId = (await p.identity.admin.findUserByEmail("erin@betacorp.test"))?.id ?? "";
    await db().update(organization).set({ roleStructure: "multi_role" }).where(eq(organization.id, beta));
    expect(
      code(
        await o.updateUserRoleInOrg({
          org_id: beta,
          user_id: erinId,
          role: "Member",
          additional_roles: ["Admin"],
        }),
      ),
    ).toBe("ok");
    const info = (await refresh("erin@betacorp.test")).org_id_to_org_member_info[beta];
    expect(info).toMatchObject({
      org_role_structure: "multi_role",
      user_role: "Member",
      additional_roles: ["Admin"],
    });
    expect(info?.inherited_user_roles_plus_current_role).toEqual(["Member", "Admin"]);
    expect(info?.user_permissions).toContain("propelauth::can_invite");
    expect(info?.user_permissions).not.toContain("propelauth::can_delete_org");
    const o2 = await as("owner@betacorp.test");
    expect(
      code(
        await o2.inviteUserToOrg({
          org_id: beta,
          email: "multi@betacorp.test",
          role: "Member",
          additional_roles: ["Admin"],
        }),
      ),
    ).toBe("ok");
    const inv = ok(await o2.fetchPendingOrgInvites(beta, { email_search: "multi@" }))?.pending_invites[0];
    expect(inv).toMatchObject({ role: "Member", additional_roles: ["Admin"] });
    const listed = ok(await o2.fetchOrgMembers(beta, { email_search: "erin" }))?.users[0];
    expect(listed).toMatchObject({ role: "Member", additional_roles: ["Admin"] });
    await db()
      .update(organization)
      .set({ roleStructure: "single_role_in_hierarchy" })
      .where(eq(organization.id, beta));
  });

  it("enforces restrict_to_domain, the member limit and the invitation rate limit", async () => {
    const o = await as("owner@betacorp.test");
    expect(
      code(
        await o.updateOrgSettings({
          org_id: beta,
          restrict_invites_by_domain: true,
          name: "Beta Corporation",
        }),
      ),
    ).toBe("ok");
    const s = ok(await o.fetchOrgSettings(beta));
    expect(s).toMatchObject({
      org_name: "Beta Corporation",
      restrict_to_domain: true,
      existing_domain: "betacorp.test",
      user_can_update_org_settings: true,
    });
    expect(code(await o.inviteUserToOrg({ org_id: beta, email: "x@elsewhere.test", role: "Member" }))).toBe(
      "domain_not_allowed",
    );
    expect(code(await o.updateOrgSettings({ org_id: beta, restrict_invites_by_domain: false }))).toBe("ok");

    const [seats] = await db().select({ id: member.id }).from(member).where(eq(member.organizationId, beta));
    expect(seats).toBeTruthy();
    const taken = ok(await o.fetchOrgMembers(beta))?.total_count ?? 0;
    const open = ok(await o.fetchPendingOrgInvites(beta))?.total_count ?? 0;
    await db()
      .update(organization)
      .set({ maxUsers: taken + open })
      .where(eq(organization.id, beta));
    expect(code(await o.inviteUserToOrg({ org_id: beta, email: "seat@betacorp.test", role: "Member" }))).toBe(
      "org_max_users_limit_exceeded",
    );
    await db().update(organization).set({ maxUsers: null }).where(eq(organization.id, beta));

    for (let i = 0; i < INVITES_PER_ORG.limit; i++)
      await p.identity.ctx.limiter.hit(inviteLimitKey(beta), INVITES_PER_ORG);
    await as("owner@betacorp.test");
    const limited = await raw(
      "POST",
      "/invite_user",
      JSON.stringify({ org_id: beta, email: "r@betacorp.test", role: "Member" }),
    );
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error_code: string }).error_code).toBe("rate_limit_exceeded");
    expect(limited.headers.get("retry-after")).toBeTruthy();
    await p.identity.ctx.limiter.reset(inviteLimitKey(beta), INVITES_PER_ORG);
  });

  it("isolates organizations: members and admins of one can't act in another", async () => {
    const acmeMemberId = (await p.identity.admin.findUserByEmail("member@acme.test"))?.id ?? "";
    const betaOwnerId = (await p.identity.admin.findUserByEmail("owner@betacorp.test"))?.id ?? "";
    const attempts = [
      { who: "owner@betacorp.test", org: acme, target: acmeMemberId, email: "member@acme.test" },
      { who: "admin@acme.test", org: beta, target: betaOwnerId, email: "pager2@betacorp.test" },
    ];
    for (const t of attempts) {
      const before = await snapshot();
      const c = await as(t.who);
      const results = [
        await c.fetchOrgMembers(t.org),
        await c.fetchPendingOrgInvites(t.org),
        await c.fetchExpiredOrgInvites(t.org),
        await c.fetchOrgSettings(t.org),
        await c.inviteUserToOrg({ org_id: t.org, email: "intruder@betacorp.test", role: "Member" }),
        await c.updateUserRoleInOrg({ org_id: t.org, user_id: t.target, role: "Admin" }),
        await c.removeUserFromOrg({ org_id: t.org, user_id: t.target }),
        await c.revokeUserOrgInvitation({ org_id: t.org, email: t.email }),
        await c.updateOrgSettings({ org_id: t.org, name: "Taken over" }),
        await c.deleteOrg(t.org),
      ];
      expect(results.map(code)).toEqual(Array(results.length).fill("org_not_found"));
      expect(await snapshot()).toEqual(before);
    }
    // Acting in your own organization on a user of another one finds no such member.
    const own = await as("admin@acme.test");
    expect(code(await own.removeUserFromOrg({ org_id: acme, user_id: betaOwnerId }))).toBe("user_not_found");
    expect(code(await own.updateUserRoleInOrg({ org_id: acme, user_id: betaOwnerId, role: "Member" }))).toBe(
      "user_not_found",
    );
  });

  it("answers bad requests with 4xx identity errors, never a 500, and writes nothing", async () => {
    await as("owner@betacorp.test");
    const before = await snapshot();
    const cases: [string, string, string | undefined][] = [
      ["POST", "/create_org", undefined],
      ["POST", "/create_org", JSON.stringify({ name: 5 })],
      ["POST", "/create_org", JSON.stringify({ name: "x".repeat(101) })],
      ["POST", "/create_org", JSON.stringify({ name: "Ok", admin: true })],
      ["POST", "/create_org", "{not json"],
      ["POST", "/create_org", JSON.stringify({ name: "Ok", autojoin_by_domain: "yes" })],
      ["POST", "/invite_user", JSON.stringify({ org_id: beta, email: "not-an-email", role: "Member" })],
      [
        "POST",
        "/invite_user",
        JSON.stringify({ org_id: beta, email: `${"a".repeat(300)}@b.test`, role: "Member" }),
      ],
      [
        "POST",
        "/invite_user",
        JSON.stringify({ org_id: beta, email: "a@betacorp.test", role: "Member", additional_roles: "Admin" }),
      ],
      ["POST", "/invite_user", JSON.stringify([1, 2, 3])],
      ["POST", "/change_role", JSON.stringify({ org_id: beta, user_id: null, role: "Member" })],
      ["POST", "/remove_user", JSON.stringify({ org_id: beta })],
      ["POST", "/revoke_user_invitation", JSON.stringify({ org_id: { $ne: 1 }, email: "a@b.test" })],
      ["POST", "/update_org_metadata", JSON.stringify({ org_id: beta, require_2fa_by: "tomorrow" })],
      ["POST", "/update_org_metadata", JSON.stringify({ org_id: beta, name: "" })],
      ["DELETE", "/delete_org", JSON.stringify({})],
      ["GET", "/org_settings", undefined],
      ["GET", `/org_membership/${beta}/members?page_size=-1`, undefined],
      ["GET", `/org_membership/${beta}/members?page_number=abc`, undefined],
      ["GET", `/org_membership/${beta}/pending_invites?unknown=1`, undefined],
      ["POST", "/create_org", JSON.stringify({ name: "y".repeat(2_000_000) })],
    ];
    for (const [method, path, body] of cases) {
      const res = await raw(method, path, body);
      expect(res.status, `${method} ${path} ${body?.slice(0, 60)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path} ${body?.slice(0, 60)}`).toBeLessThan(500);
      expect(((await res.json()) as { error_code?: string }).error_code).toBeTruthy();
    }
    const noCsrf = await fetch(`${base}/api/fe/v3/create_org`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "No CSRF" }),
    });
    expect(noCsrf.status).toBe(403);
    expect(code(await (await as(null)).createOrg({ name: "Anonymous" }))).toBe("not_logged_in");
    expect(await snapshot()).toEqual(before);
  });

  it("serves the hosted /org page by permission, and /saml refuses an Admin", async () => {
    const anon = await realFetch(`${base}/org?id=${acme}`, { redirect: "manual" });
    expect(anon.status).toBe(303);
    expect(anon.headers.get("location")).toMatch(/^\/login\?rt=/);
    await as("admin@acme.test");
    const admin = await (await fetch(`${base}/org?id=${acme}`)).text();
    expect(admin).toContain("Acme AI");
    expect(admin).toContain("member@acme.test");
    expect(admin).toContain('action="/org/invite"');
    expect(admin).toContain('action="/org/settings"');
    await as("member@acme.test");
    const memberPage = await (await fetch(`${base}/org?id=${acme}`)).text();
    expect(memberPage).toContain("admin@acme.test");
    expect(memberPage).not.toContain('action="/org/invite"');
    expect(memberPage).not.toContain('action="/org/change_role"');
    const other = await fetch(`${base}/org?id=${beta}`);
    expect(other.status).toBe(404);
    await as("admin@acme.test");
    const invited = await fetch(`${base}/org/invite`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: AUTH },
      body: new URLSearchParams({ org_id: acme, email: "not-an-email", role: "Member" }),
    });
    expect(invited.status).toBe(400);
    expect(await invited.text()).toContain("Please enter a valid email address.");
    const saml = await fetch(`${base}/saml?id=${acme}`);
    expect(saml.status).toBe(403);
    expect(await saml.text()).toContain("only an Owner");
  });

  it("deletes an organization only as its Owner", async () => {
    expect(code(await (await as("erin@betacorp.test")).deleteOrg(beta))).toBe("action_forbidden");
    const o = await as("owner@betacorp.test");
    expect(code(await o.deleteOrg(beta))).toBe("ok");
    expect(code(await o.fetchOrgSettings(beta))).toBe("org_not_found");
    expect((await refresh("erin@betacorp.test")).org_id_to_org_member_info[beta]).toBeUndefined();
  });

  it("opens the user's organization at /org without an id, and keeps rt as the way back to the console", async () => {
    const back = `${CONSOLE}/organization/workspaces`;
    const rt = encodeURIComponent(btoa(back));
    const form = { "content-type": "application/x-www-form-urlencoded", origin: AUTH };

    // A signed-in administrator opens their (active) organization, with the way back to the console.
    await as("admin@acme.test");
    const plain = await fetch(`${base}/org`);
    expect(plain.status).toBe(200);
    const plainHtml = await plain.text();
    expect(plainHtml).toContain("<h1>Acme AI</h1>");
    expect(plainHtml).not.toContain("You are not a member");
    expect(plainHtml).toContain(`href="${CONSOLE}/"`);

    const page = await fetch(`${base}/org?rt=${rt}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<h1>Acme AI</h1>");
    expect(html).toMatch(new RegExp(`<a [^>]*href="${back}"[^>]*>Back to the console</a>`));
    expect(html).toContain(`action="/org/invite?rt=${rt}"`);
    expect(html).toContain(`action="/org/settings?rt=${rt}"`);
    // A form post comes back to the page with rt kept.
    const invited = await fetch(`${base}/org/invite?rt=${rt}`, {
      method: "POST",
      redirect: "manual",
      headers: form,
      body: new URLSearchParams({ org_id: acme, email: "rt-guest@acme.test", role: "Member" }),
    });
    expect(invited.status).toBe(303);
    expect(invited.headers.get("location")).toBe(`/org?id=${acme}&done=invited&rt=${rt}`);
    // A return target on another site is dropped: the way back is the console itself.
    const foreign = await (
      await fetch(`${base}/org?rt=${encodeURIComponent(btoa("https://evil.test/"))}`)
    ).text();
    expect(foreign).not.toContain("evil.test");
    expect(foreign).toMatch(new RegExp(`<a [^>]*href="${CONSOLE}/"[^>]*>Back to the console</a>`));

    // Someone in no organization is offered to create one; /create_org keeps rt to the new org page.
    await newUser("rosa@rtcorp.test");
    await as("rosa@rtcorp.test");
    const none = await fetch(`${base}/org?rt=${rt}`);
    expect(none.status).toBe(404);
    expect(await none.text()).toContain(`href="/create_org?rt=${rt}"`);
    const createPage = await (await fetch(`${base}/create_org?rt=${rt}`)).text();
    expect(createPage).toContain(`action="/create_org?rt=${rt}"`);
    expect(createPage).toMatch(new RegExp(`<a [^>]*href="${back}"[^>]*>Back to the console</a>`));
    const created = await fetch(`${base}/create_org?rt=${rt}`, {
      method: "POST",
      redirect: "manual",
      headers: form,
      body: new URLSearchParams({ name: "RT Corp" }),
    });
    expect(created.status).toBe(303);
    expect(created.headers.get("location")).toMatch(
      new RegExp(`^/org\\?id=[0-9a-f-]+&done=created&rt=${rt}$`),
    );
    const own = await (await fetch(`${base}${created.headers.get("location")}`)).text();
    expect(own).toContain("<h1>RT Corp</h1>");
    expect(own).toContain("Organization created.");
    expect(own).toMatch(new RegExp(`<a [^>]*href="${back}"[^>]*>Back to the console</a>`));
    expect(await (await fetch(`${base}/org`)).text()).toContain("<h1>RT Corp</h1>");
  });
});
