import { randomUUID } from "node:crypto";
import { and, eq, like, or } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import * as samlify from "samlify";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditLog,
  emailOutbox,
  member,
  organization,
  ssoLink,
  user,
  verification,
} from "../../server/db/schema";
import { encodeReturnTarget } from "../../server/identity/return-target";
import { type DnsStub, startDnsStub } from "./dns-stub";
import {
  AUTH,
  backends,
  CONSOLE,
  cookieHeader,
  PASSWORD,
  signIn,
  startProduct,
  type TestProduct,
} from "./harness";

// Per-organization SAML sign-in, driven end to end against the identity app: an Owner sets it up
// through the hosted form, and a samlify identity provider, with a certificate made here, answers
// the AuthnRequests our service provider sends with real signed responses. Domain ownership is
// checked against a DNS server run here (DNS_RESOLVER points at it).

// The IdP side only builds responses; our SP (node-saml) does the checking that matters.
samlify.setSchemaValidator({ validate: async () => "skipped" });

const IDP_ENTITY = "https://idp.example.test/metadata";
const IDP_SSO = "https://idp.example.test/sso";
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

type Keys = { cert: string; key: string };
async function makeKeys(cn: string): Promise<Keys> {
  const pems = await generate([{ name: "commonName", value: cn }], { keySize: 2048, algorithm: "sha256" });
  return { cert: pems.cert, key: pems.private };
}

function testIdp(keys: Keys, entityID = IDP_ENTITY) {
  return samlify.IdentityProvider({
    entityID,
    signingCert: keys.cert,
    privateKey: keys.key,
    nameIDFormat: [EMAIL_FORMAT],
    singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: IDP_SSO }],
    singleLogoutService: [
      { Binding: samlify.Constants.namespace.binding.redirect, Location: `${IDP_SSO}/logout` },
    ],
  });
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe.each(backends())("SAML sign-in on $name", (backend) => {
  let p: TestProduct;
  let acme = "";
  let keys: Keys;
  let otherKeys: Keys;
  let idp: ReturnType<typeof samlify.IdentityProvider>;
  let sp: ReturnType<typeof samlify.ServiceProvider>;
  let dns: DnsStub;
  const cookies = new Map<string, string>();

  const inject = (
    method: "GET" | "POST",
    url: string,
    o: { cookie?: string; body?: Record<string, string>; origin?: string } = {},
  ) =>
    p.identity.app.inject({
      method,
      url,
      headers: {
        ...(o.cookie ? { cookie: o.cookie } : {}),
        // Form posts come from the identity service's own pages unless a test says otherwise.
        ...(o.origin
          ? { origin: o.origin }
          : method === "POST" && !url.endsWith("/acs")
            ? { origin: AUTH }
            : {}),
        ...(o.body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      payload: o.body ? form(o.body) : undefined,
    });
  const as = async (email: string) => {
    let c = cookies.get(email);
    if (!c) {
      c = await signIn(p, email);
      cookies.set(email, c);
    }
    return c;
  };
  const db = () => p.identity.ctx.db;
  const settings = (values: Record<string, string>) => ({
    org_id: acme,
    idp_entity_id: IDP_ENTITY,
    idp_sso_url: IDP_SSO,
    idp_certificate: keys.cert,
    enabled: "on",
    ...values,
  });

  /** An organization's SAML as the test's IdP sees it: our SP's metadata, and the IdP answering. */
  type Target = {
    orgId: string;
    sp: ReturnType<typeof samlify.ServiceProvider>;
    idp: ReturnType<typeof samlify.IdentityProvider>;
    entity: string;
  };
  const acmeTarget = (): Target => ({ orgId: acme, sp, idp, entity: IDP_ENTITY });

  /** SP-initiated: our /login redirect, read by the IdP. */
  async function startLogin(rt?: string, t: Target = acmeTarget()) {
    const res = await inject("GET", `/saml/${t.orgId}/login${rt ? `?rt=${encodeURIComponent(rt)}` : ""}`);
    expect(res.statusCode).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(IDP_SSO);
    const query = Object.fromEntries(location.searchParams);
    const requestInfo = await t.idp.parseLoginRequest(t.sp, "redirect", { query });
    return { requestInfo, relayState: query.RelayState ?? "", t };
  }

  /** A response to that request, signed by `by`; `tags` override the template's values. */
  async function respond(
    login: Awaited<ReturnType<typeof startLogin>>,
    email: string,
    o: { by?: ReturnType<typeof samlify.IdentityProvider>; tags?: Record<string, string> } = {},
  ) {
    const { t } = login;
    const signer = o.by ?? t.idp;
    const now = new Date();
    const later = new Date(now.getTime() + 5 * 60_000).toISOString();
    const id = `_${randomUUID()}`;
    const requestId = (login.requestInfo.extract as { request: { id: string } }).request.id;
    const values: Record<string, string> = {
      ID: id,
      AssertionID: `_${randomUUID()}`,
      Destination: `${AUTH}/saml/${t.orgId}/acs`,
      Audience: `${AUTH}/saml/${t.orgId}/metadata`,
      SubjectRecipient: `${AUTH}/saml/${t.orgId}/acs`,
      Issuer: t.entity,
      IssueInstant: now.toISOString(),
      StatusCode: samlify.Constants.StatusCode.Success,
      ConditionsNotBefore: now.toISOString(),
      ConditionsNotOnOrAfter: later,
      SubjectConfirmationDataNotOnOrAfter: later,
      NameIDFormat: EMAIL_FORMAT,
      NameID: email,
      InResponseTo: requestId,
      AuthnStatement: "",
      AttributeStatement: "",
      ...o.tags,
    };
    const out = await signer.createLoginResponse(
      t.sp,
      login.requestInfo as unknown as Parameters<typeof signer.createLoginResponse>[1],
      "post",
      { email },
      (template) => ({
        id,
        context: samlify.SamlLib.replaceTagsByValue(template, values),
      }),
    );
    return (out as { context: string }).context;
  }

  const acs = (samlResponse: string, relayState = "", orgId = acme) =>
    inject("POST", `/saml/${orgId}/acs`, { body: { SAMLResponse: samlResponse, RelayState: relayState } });
  const refresh = (cookie: string) => inject("GET", "/api/v1/refresh_token", { cookie });
  const TXT_NAME = "_evalconsole-verification.acme.test";
  /** The TXT value the set-up page asks the organization's Owner to publish. */
  const wantedRecord = async (orgId: string, owner: string) => {
    const page = await inject("GET", `/saml?id=${orgId}`, { cookie: await as(owner) });
    const value = page.body.match(/evalconsole-verification=[A-Za-z0-9_-]+/)?.[0];
    expect(value, page.body.slice(0, 500)).toBeTruthy();
    return value as string;
  };
  const verifyDomain = (orgId: string, owner: string, o: { origin?: string } = {}) =>
    as(owner).then((cookie) =>
      inject("POST", "/saml/verify_domain", { cookie, origin: o.origin, body: { org_id: orgId } }),
    );
  const linksOf = (email: string) =>
    db()
      .select({ orgId: ssoLink.orgId, nameId: ssoLink.nameId })
      .from(ssoLink)
      .innerJoin(user, eq(user.id, ssoLink.userId))
      .where(eq(user.email, email));
  const membershipsOf = (email: string) =>
    db()
      .select({ orgId: member.organizationId, role: member.role })
      .from(member)
      .innerJoin(user, eq(user.id, member.userId))
      .where(eq(user.email, email));
  /** The pending-link token on the "Link your account" page. */
  const linkToken = (body: string) => body.match(/name="token" value="([A-Za-z0-9_-]+)"/)?.[1] ?? "";
  const postLink = (fields: Record<string, string>) => inject("POST", "/saml/link", { body: fields });
  const loginCheck = async (q: string) =>
    (
      await p.identity.app.inject({
        method: "GET",
        url: `/api/fe/v3/login/check?${q}`,
        headers: { "x-csrf-token": "-.-" },
      })
    ).json() as { login_url?: string; error_code?: string };
  /** A refused response: the hosted error page, no cookie, nothing signed in. */
  const expectRefused = (res: Awaited<ReturnType<typeof acs>>, status: number, text: RegExp) => {
    expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.body).toMatch(text);
  };

  beforeAll(async () => {
    [keys, otherKeys] = await Promise.all([makeKeys("idp.example.test"), makeKeys("evil.example.test")]);
    dns = await startDnsStub();
    p = await startProduct(backend, { DNS_RESOLVER: dns.address });
    acme = (await p.identity.admin.findOrganizationBySlug("acme-ai"))?.id ?? "";
    const owner = await p.identity.admin.createUser({
      email: "owner@acme.test",
      password: "test-demo-password",
    });
    await p.identity.admin.addMember(acme, owner.id, "Owner");
    idp = testIdp(keys);
  });
  afterAll(async () => {
    await p?.dispose();
    await dns?.close();
  });

  it("lets only an Owner set SAML up through the hosted form, keeping values on errors", async () => {
    for (const email of ["admin@acme.test", "member@acme.test"]) {
      const page = await inject("GET", `/saml?id=${acme}`, { cookie: await as(email) });
      expect(page.statusCode).toBe(403);
      expect(page.body).toContain("only an Owner");
      const post = await inject("POST", "/saml", { cookie: await as(email), body: settings({}) });
      expect(post.statusCode).toBe(403);
    }
    const anon = await inject("GET", `/saml?id=${acme}`);
    expect(anon.statusCode).toBe(303);
    expect(anon.headers.location).toMatch(/^\/login\?rt=/);

    const owner = await as("owner@acme.test");
    const page = await inject("GET", `/saml?id=${acme}`, { cookie: owner });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`${AUTH}/saml/${acme}/metadata`);
    expect(page.body).toContain(`${AUTH}/saml/${acme}/acs`);
    expect(page.body).toContain("Not set up yet");
    expect(page.body).not.toContain("Test sign-in");
    // The page asks for the domain's DNS proof before anyone is routed to the IdP.
    expect(page.body).toContain(TXT_NAME);
    expect(page.body).toMatch(/evalconsole-verification=[A-Za-z0-9_-]{20,}/);
    expect(page.body).toContain("Verify acme.test");

    const bad = await inject("POST", "/saml", {
      cookie: owner,
      body: settings({
        idp_entity_id: "",
        idp_sso_url: "ftp://idp.example.test/x",
        idp_certificate: "not <a> cert",
      }),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("Please enter the identity provider&#39;s entity ID.");
    expect(bad.body).toContain("Please enter the sign-in URL");
    expect(bad.body).toContain("This is not a valid X.509 certificate");
    expect(bad.body).toContain('value="ftp://idp.example.test/x"');
    expect(bad.body).toContain("not &lt;a&gt; cert</textarea>");
    const crossSite = await inject("POST", "/saml", {
      cookie: owner,
      origin: "https://evil.example",
      body: settings({}),
    });
    expect(crossSite.statusCode).toBe(403);
    expect(
      await p.identity.ctx.db.select().from(organization).where(eq(organization.id, acme)),
    ).toMatchObject([{ domain: "acme.test", domainVerifiedAt: null }]);

    // A bare base64 certificate (as some IdP consoles show it) is accepted and stored as PEM.
    const bare = keys.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, "");
    const saved = await inject("POST", "/saml", { cookie: owner, body: settings({ idp_certificate: bare }) });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/saml?id=${acme}&done=saved`);
    const after = await inject("GET", saved.headers.location as string, { cookie: owner });
    expect(after.body).toContain("SAML settings saved.");
    expect(after.body).toContain("Test sign-in");
    expect(after.body).toContain(IDP_SSO);
    expect(after.body).toContain("-----BEGIN CERTIFICATE-----");
    // SAML is bound to the organization's domain, taken from the Owner's address.
    const [org] = await db().select().from(organization).where(eq(organization.id, acme));
    expect(org?.domain).toBe("acme.test");
    // The change is in the organization's audit log: settings, and the certificate by fingerprint only.
    const [audited] = await db().select().from(auditLog).where(eq(auditLog.action, "sso.settings_changed"));
    expect(audited).toMatchObject({
      organizationUuid: acme,
      source: "console",
      targetType: "sso_connection",
      before: null,
      after: { idp_entity_id: IDP_ENTITY, idp_sso_url: IDP_SSO, enabled: true },
    });
    expect(
      (audited?.after as { idp_signing_fingerprint?: string } | undefined)?.idp_signing_fingerprint,
    ).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(JSON.stringify(audited)).not.toContain(bare.slice(0, 40));

    const metadata = await inject("GET", `/saml/${acme}/metadata`);
    expect(metadata.statusCode).toBe(200);
    expect(metadata.body).toContain(`entityID="${AUTH}/saml/${acme}/metadata"`);
    expect(metadata.body).toContain(`Location="${AUTH}/saml/${acme}/acs"`);
    sp = samlify.ServiceProvider({ metadata: metadata.body });

    const orgSettings = async (email: string) =>
      (
        await p.identity.app.inject({
          method: "GET",
          url: `/api/fe/v3/org_settings?org_id=${acme}`,
          headers: { cookie: await as(email), "x-csrf-token": "-.-" },
        })
      ).json();
    expect(await orgSettings("owner@acme.test")).toMatchObject({
      can_setup_saml: true,
      is_saml_enabled: true,
    });
    expect(await orgSettings("admin@acme.test")).toMatchObject({
      can_setup_saml: false,
      is_saml_enabled: true,
    });
  });

  it("routes no one to an unverified domain's SSO and lets it sign no one in", async () => {
    const passwordLogin = { login_url: `${AUTH}/login?email=someone%40acme.test` };
    expect(await loginCheck("email=someone%40acme.test")).toEqual(passwordLogin);
    expect(await loginCheck("domain=acme.test")).toEqual({ login_url: `${AUTH}/login` });
    expect(await loginCheck(`org_id=${acme}`)).toEqual({ login_url: `${AUTH}/login` });
    // Signed by the configured IdP, yet refused: neither a new address nor an existing account.
    for (const email of ["first.comer@acme.test", "admin@acme.test"]) {
      const login = await startLogin();
      expectRefused(await acs(await respond(login, email)), 403, /has not verified its email domain/);
    }
    expect(await db().select().from(user).where(eq(user.email, "first.comer@acme.test"))).toEqual([]);
    expect(await linksOf("admin@acme.test")).toEqual([]);
  });

  it("verifies the domain from its DNS TXT record, asked through the configured resolver", async () => {
    const value = await wantedRecord(acme, "owner@acme.test");
    // Only the Owner may ask, and only from the page's own site.
    expect((await verifyDomain(acme, "admin@acme.test")).statusCode).toBe(403);
    expect((await verifyDomain(acme, "owner@acme.test", { origin: "https://evil.example" })).statusCode).toBe(
      403,
    );
    // No record yet.
    const before = dns.asked.length;
    const none = await verifyDomain(acme, "owner@acme.test");
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain(`No TXT record was found at ${TXT_NAME}`);
    expect(dns.asked.slice(before)).toContain(TXT_NAME);
    // A record with another value.
    dns.txt.set(TXT_NAME, ["evalconsole-verification=someone-else", "v=spf1 -all"]);
    const wrong = await verifyDomain(acme, "owner@acme.test");
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain("does not hold this organization");
    const [still] = await db().select().from(organization).where(eq(organization.id, acme));
    expect(still?.domainVerifiedAt).toBeNull();
    // The right one.
    dns.txt.set(TXT_NAME, ["v=spf1 -all", value]);
    const ok = await verifyDomain(acme, "owner@acme.test");
    expect(ok.statusCode, ok.body.slice(0, 300)).toBe(303);
    expect(ok.headers.location).toBe(`/saml?id=${acme}&done=verified`);
    const page = await inject("GET", ok.headers.location as string, { cookie: await as("owner@acme.test") });
    expect(page.body).toContain("acme.test is verified");
    expect(page.body).not.toContain("Verify acme.test");
    const [org] = await db().select().from(organization).where(eq(organization.id, acme));
    expect(org?.domainVerifiedAt).toBeInstanceOf(Date);
  });

  it("answers login/check with the SAML sign-in for the organization's id, domain and emails", async () => {
    const samlLogin = `${AUTH}/saml/${acme}/login`;
    expect(await loginCheck(`org_id=${acme}`)).toEqual({ login_url: samlLogin });
    expect(await loginCheck("email=someone%40acme.test")).toEqual({ login_url: samlLogin });
    expect(await loginCheck("domain=ACME.test")).toEqual({ login_url: samlLogin });
    expect(await loginCheck("email=someone%40other.test")).toEqual({
      login_url: `${AUTH}/login?email=someone%40other.test`,
    });
    expect((await loginCheck(`org_id=${randomUUID()}`)).error_code).toBe("org_not_found");
  });

  it("signs a new person in through the IdP as a Member, and an existing member keeps their role", async () => {
    const back = `${CONSOLE}/after?x=1`;
    const login = await startLogin(encodeReturnTarget(back));
    const res = await acs(await respond(login, "New.Person@acme.test"), login.relayState);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
    expect(res.headers.location).toBe(back);
    const cookie = cookieHeader(res.headers["set-cookie"]);
    expect(cookie).toMatch(/session_token=/);
    const me = await refresh(cookie);
    expect(me.statusCode).toBe(200);
    const body = me.json();
    expect(body.user).toMatchObject({ email: "new.person@acme.test", email_confirmed: true });
    expect(body.org_id_to_org_member_info[acme]).toMatchObject({ user_role: "Member" });
    const [created] = await db().select().from(user).where(eq(user.email, "new.person@acme.test"));
    expect(created?.emailVerified).toBe(true);

    // The account the IdP created is linked to the organization's SSO under its NameID.
    expect(await linksOf("new.person@acme.test")).toEqual([{ orgId: acme, nameId: "new.person@acme.test" }]);
    // Its joining through the verified domain is in the audit trail.
    const joins = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationUuid, acme), eq(auditLog.action, "org_user.joined_by_domain")));
    expect(joins.map((j) => [j.targetId, j.actorEmail, j.after])).toEqual([
      [created?.id, "new.person@acme.test", { role: "Member", domain: "acme.test", via: "sso" }],
    ]);
  });

  it("signs an existing account in only after its owner links it with their password", async () => {
    const back = `${CONSOLE}/after?y=2`;
    const login = await startLogin(encodeReturnTarget(back));
    const res = await acs(await respond(login, "admin@acme.test"), login.relayState);
    // No session: a page asking the account's owner to link it.
    expectRefused(res, 403, /Link your account/);
    expect(res.body).toContain("admin@acme.test");
    expect(await linksOf("admin@acme.test")).toEqual([]);
    const token = linkToken(res.body);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored hashed: the token itself is nowhere in the database.
    const rows = await db()
      .select()
      .from(verification)
      .where(or(like(verification.identifier, `%${token}%`), like(verification.value, `%${token}%`)));
    expect(rows).toEqual([]);

    const wrong = await postLink({ token, action: "password", password: "not-the-password" });
    expectRefused(wrong, 401, /Incorrect email or password/);
    expect(await linksOf("admin@acme.test")).toEqual([]);
    expectRefused(
      await postLink({ token: "x".repeat(43), action: "password", password: PASSWORD }),
      400,
      /expired/,
    );
    expect(
      (
        await inject("POST", "/saml/link", {
          origin: "https://evil.example",
          body: { token, action: "password", password: PASSWORD },
        })
      ).statusCode,
    ).toBe(403);

    const linked = await postLink({ token, action: "password", password: PASSWORD });
    expect(linked.statusCode, linked.body.slice(0, 300)).toBe(303);
    expect(linked.headers.location).toBe(back);
    const info = (await refresh(cookieHeader(linked.headers["set-cookie"]))).json();
    expect(info.user.email).toBe("admin@acme.test");
    expect(info.org_id_to_org_member_info[acme]).toMatchObject({ user_role: "Admin" });
    expect(await linksOf("admin@acme.test")).toEqual([{ orgId: acme, nameId: "admin@acme.test" }]);
    // The pending link is spent.
    expectRefused(await postLink({ token, action: "password", password: PASSWORD }), 400, /expired/);

    // From now on the IdP signs the account in directly, keeping its role.
    const again = await startLogin();
    const admin = await acs(await respond(again, "admin@acme.test"));
    expect(admin.statusCode).toBe(303);
    expect(admin.headers.location).toBe(`${CONSOLE}/`);
    const adminInfo = (await refresh(cookieHeader(admin.headers["set-cookie"]))).json();
    expect(adminInfo.org_id_to_org_member_info[acme]).toMatchObject({ user_role: "Admin" });
  });

  it("links an existing account through an emailed confirmation link", async () => {
    const login = await startLogin();
    const res = await acs(await respond(login, "member@acme.test"));
    expectRefused(res, 403, /Link your account/);
    const sent = await postLink({ token: linkToken(res.body), action: "email" });
    expect(sent.statusCode).toBe(200);
    expect(sent.headers["set-cookie"]).toBeUndefined();
    expect(sent.body).toContain("Check your email");
    const [mail] = await db()
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.to, "member@acme.test"), eq(emailOutbox.kind, "sso_link")));
    const url = mail?.text.match(/https?:\/\/\S+\/saml\/link\/confirm\?token=[A-Za-z0-9_-]+/)?.[0] ?? "";
    expect(url.startsWith(`${AUTH}/saml/link/confirm?token=`)).toBe(true);
    const token = new URL(url).searchParams.get("token") ?? "";
    const stored = await db()
      .select()
      .from(verification)
      .where(or(like(verification.identifier, `%${token}%`), like(verification.value, `%${token}%`)));
    expect(stored).toEqual([]);

    // Opening the link changes nothing by itself: it shows one button.
    const page = await inject("GET", `/saml/link/confirm?token=${token}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Link my account");
    expect(await linksOf("member@acme.test")).toEqual([]);
    // Still no session through SSO before the confirmation.
    const early = await startLogin();
    expectRefused(await acs(await respond(early, "member@acme.test")), 403, /Link your account/);

    const confirmed = await inject("POST", "/saml/link/confirm", { body: { token } });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.headers["set-cookie"]).toBeUndefined();
    expect(confirmed.body).toContain("Account linked");
    expect(await linksOf("member@acme.test")).toEqual([{ orgId: acme, nameId: "member@acme.test" }]);
    expectRefused(await inject("POST", "/saml/link/confirm", { body: { token } }), 400, /expired/);
    expectRefused(await inject("GET", `/saml/link/confirm?token=${token}`), 400, /expired/);

    const after = await startLogin();
    const signedIn = await acs(await respond(after, "member@acme.test"));
    expect(signedIn.statusCode).toBe(303);
    const info = (await refresh(cookieHeader(signedIn.headers["set-cookie"]))).json();
    expect(info.org_id_to_org_member_info[acme]).toMatchObject({ user_role: "Member" });
  });

  it("never skips the second factor: an account with MFA passes the TOTP step after the IdP", async () => {
    const email = "mfa.user@acme.test";
    const created = await p.identity.admin.createUser({ email, password: PASSWORD });
    await p.identity.admin.addMember(acme, created.id, "Member");
    const session = await as(email);
    const fe = (url: string, body: unknown) =>
      p.identity.app.inject({
        method: "POST",
        url: `/api/fe/v3/${url}`,
        headers: { cookie: session, "x-csrf-token": "-.-", "content-type": "application/json" },
        payload: JSON.stringify(body),
      });
    const secret = (await fe("security_status", {})).json().new_secret as string;
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });
    expect((await fe("mfa_enable", { code: totp.generate() })).statusCode).toBe(200);

    // Linking with the password leads to the code step, not to a session.
    const l1 = await startLogin();
    const res = await acs(await respond(l1, email));
    expectRefused(res, 403, /Link your account/);
    const linked = await postLink({ token: linkToken(res.body), action: "password", password: PASSWORD });
    expect(linked.statusCode).toBe(303);
    expect(linked.headers.location).toMatch(/^\/login\/mfa/);
    expect((await refresh(cookieHeader(linked.headers["set-cookie"]))).statusCode).toBe(401);
    expect(await linksOf(email)).toHaveLength(1);

    // A linked account with MFA: the IdP's answer opens the code step only.
    const back = `${CONSOLE}/after?z=3`;
    const l2 = await startLogin(encodeReturnTarget(back));
    const sso = await acs(await respond(l2, email), l2.relayState);
    expect(sso.statusCode).toBe(303);
    expect(sso.headers.location).toBe(`/login/mfa?rt=${encodeURIComponent(l2.relayState)}`);
    const challenge = cookieHeader(sso.headers["set-cookie"]);
    expect(challenge).not.toMatch(/session_token=/);
    expect((await refresh(challenge)).statusCode).toBe(401);
    const badCode = await inject("POST", sso.headers.location as string, {
      cookie: challenge,
      origin: AUTH,
      body: { code: "000000" },
    });
    expect(badCode.headers["set-cookie"] ?? "").not.toMatch(/session_token=/);
    // A code of the next period: the one that turned MFA on can't be used twice.
    const code = totp.generate({ timestamp: Date.now() + 30_000 });
    const passed = await inject("POST", sso.headers.location as string, {
      cookie: challenge,
      origin: AUTH,
      body: { code },
    });
    expect(passed.statusCode, passed.body.slice(0, 300)).toBe(303);
    expect(passed.headers.location).toBe(back);
    const me = await refresh(cookieHeader(passed.headers["set-cookie"]));
    expect(me.statusCode).toBe(200);
    expect(me.json().user.email).toBe(email);
  });

  it("refuses forged, misdirected, expired and replayed responses without a session", async () => {
    // Unsigned: the template filled in by hand, no signature at all.
    const l1 = await startLogin();
    const requestId = (l1.requestInfo.extract as { request: { id: string } }).request.id;
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 300_000).toISOString();
    const unsigned = samlify.SamlLib.replaceTagsByValue(
      samlify.SamlLib.defaultLoginResponseTemplate.context,
      {
        ID: "_u1",
        AssertionID: "_u2",
        Destination: `${AUTH}/saml/${acme}/acs`,
        Audience: `${AUTH}/saml/${acme}/metadata`,
        SubjectRecipient: `${AUTH}/saml/${acme}/acs`,
        Issuer: IDP_ENTITY,
        IssueInstant: now,
        StatusCode: samlify.Constants.StatusCode.Success,
        ConditionsNotBefore: now,
        ConditionsNotOnOrAfter: later,
        SubjectConfirmationDataNotOnOrAfter: later,
        NameIDFormat: EMAIL_FORMAT,
        NameID: "admin@acme.test",
        InResponseTo: requestId,
        AuthnStatement: "",
        AttributeStatement: "",
      },
    );
    expectRefused(await acs(Buffer.from(unsigned).toString("base64")), 400, /not signed/);

    // Signed, but by another key than the configured certificate.
    const l2 = await startLogin();
    expectRefused(
      await acs(await respond(l2, "admin@acme.test", { by: testIdp(otherKeys) })),
      400,
      /not signed/,
    );

    // Signed correctly, then altered: the signature no longer matches.
    const l3 = await startLogin();
    const good = Buffer.from(await respond(l3, "member@acme.test"), "base64").toString("utf8");
    const tampered = good.replace("member@acme.test", "admin@acme.test");
    expect(tampered).not.toBe(good);
    expectRefused(await acs(Buffer.from(tampered).toString("base64")), 400, /not signed/);

    // Meant for another service provider.
    const l4 = await startLogin();
    expectRefused(
      await acs(await respond(l4, "admin@acme.test", { tags: { Audience: "https://other.example/sp" } })),
      400,
      /meant for another service/,
    );

    // Expired a while ago (beyond the allowed clock skew).
    const l5 = await startLogin();
    const past = new Date(Date.now() - 30 * 60_000).toISOString();
    const older = new Date(Date.now() - 40 * 60_000).toISOString();
    expectRefused(
      await acs(
        await respond(l5, "admin@acme.test", {
          tags: {
            IssueInstant: older,
            ConditionsNotBefore: older,
            ConditionsNotOnOrAfter: past,
            SubjectConfirmationDataNotOnOrAfter: past,
          },
        }),
      ),
      400,
      /expired/,
    );

    // Sent to another address.
    const l6 = await startLogin();
    expectRefused(
      await acs(
        await respond(l6, "admin@acme.test", { tags: { Destination: "https://elsewhere.example/acs" } }),
      ),
      400,
      /sent to another address/,
    );

    // A response to a request we never sent.
    const l7 = await startLogin();
    expectRefused(
      await acs(await respond(l7, "admin@acme.test", { tags: { InResponseTo: "_never-sent" } })),
      400,
      /already used|does not answer/,
    );

    // Replayed: the first use signs in, the second is refused.
    const l8 = await startLogin();
    const once = await respond(l8, "member@acme.test");
    expect((await acs(once)).statusCode).toBe(303);
    expectRefused(await acs(once), 400, /already used/);

    // Other organizations can't consume it either, and an unknown one is refused plainly.
    const nobody = randomUUID();
    const unknown = await inject("POST", `/saml/${nobody}/acs`, { body: { SAMLResponse: once } });
    expect(unknown.statusCode).toBe(403);
    expect(unknown.headers["set-cookie"]).toBeUndefined();
    expect((await inject("GET", `/saml/${nobody}/login`)).statusCode).toBe(403);
    expectRefused(await acs("%%%not base64"), 400, /malformed/);
    expectRefused(await acs(Buffer.from("<not-xml").toString("base64")), 400, /not valid/);
  });

  it("keeps sign-in to the organization's domain and within its member limit", async () => {
    const l1 = await startLogin();
    expectRefused(await acs(await respond(l1, "someone@other.test")), 403, /Only @acme\.test addresses/);
    expect(await db().select().from(user).where(eq(user.email, "someone@other.test"))).toEqual([]);

    const members = await db().select().from(member).where(eq(member.organizationId, acme));
    await db().update(organization).set({ maxUsers: members.length }).where(eq(organization.id, acme));
    const l2 = await startLogin();
    expectRefused(await acs(await respond(l2, "late.comer@acme.test")), 400, /maximum number of users/);
    expect(await db().select().from(user).where(eq(user.email, "late.comer@acme.test"))).toEqual([]);
    // An existing member still gets in when the organization is full.
    const l3 = await startLogin();
    expect((await acs(await respond(l3, "new.person@acme.test"))).statusCode).toBe(303);
    await db().update(organization).set({ maxUsers: null }).where(eq(organization.id, acme));
  });

  it("gives an attacker's organization no session, membership or routing for another's accounts", async () => {
    // A member of Acme creates an organization: its domain is taken from their address (acme.test).
    const attacker = "member@acme.test";
    const created = await p.identity.app.inject({
      method: "POST",
      url: "/api/fe/v3/create_org",
      headers: { cookie: await as(attacker), "x-csrf-token": "-.-", "content-type": "application/json" },
      payload: JSON.stringify({ name: "Evil Corp" }),
    });
    expect(created.statusCode, created.body).toBe(200);
    const evil = created.json().org_id as string;
    // ...and points SAML at an IdP of their own.
    const EVIL_IDP = "https://idp.evil.test/metadata";
    const saved = await inject("POST", "/saml", {
      cookie: await as(attacker),
      body: settings({ org_id: evil, idp_entity_id: EVIL_IDP, idp_certificate: otherKeys.cert }),
    });
    expect(saved.statusCode).toBe(303);
    const metadata = await inject("GET", `/saml/${evil}/metadata`);
    const t: Target = {
      orgId: evil,
      sp: samlify.ServiceProvider({ metadata: metadata.body }),
      idp: testIdp(otherKeys, EVIL_IDP),
      entity: EVIL_IDP,
    };
    const adminBefore = await membershipsOf("admin@acme.test");

    // Its IdP asserts Acme's administrator (and a new address of the domain): refused, no session.
    for (const email of ["admin@acme.test", "owner@acme.test", "brand.new@acme.test"]) {
      const login = await startLogin(undefined, t);
      const res = await acs(await respond(login, email), "", evil);
      expectRefused(res, 403, /has not verified its email domain/);
    }
    expect(await membershipsOf("admin@acme.test")).toEqual(adminBefore);
    expect((await membershipsOf("admin@acme.test")).some((m) => m.orgId === evil)).toBe(false);
    expect(await db().select().from(user).where(eq(user.email, "brand.new@acme.test"))).toEqual([]);
    expect((await linksOf("admin@acme.test")).some((l) => l.orgId === evil)).toBe(false);

    // It can't verify acme.test: Acme did (even were its own value published).
    dns.txt.set(TXT_NAME, [...(dns.txt.get(TXT_NAME) ?? []), await wantedRecord(evil, attacker)]);
    const taken = await verifyDomain(evil, attacker);
    expect(taken.statusCode).toBe(409);
    expect(taken.body).toContain("acme.test is already verified by another organization");
    const [evilOrg] = await db().select().from(organization).where(eq(organization.id, evil));
    expect(evilOrg?.domainVerifiedAt).toBeNull();

    // login/check still sends the domain to Acme's SSO only, never the attacker's.
    const samlLogin = { login_url: `${AUTH}/saml/${acme}/login` };
    expect(await loginCheck("email=admin%40acme.test")).toEqual(samlLogin);
    expect(await loginCheck("domain=acme.test")).toEqual(samlLogin);
    expect(await loginCheck(`org_id=${evil}`)).toEqual({ login_url: `${AUTH}/login` });
  });

  it("never verifies a personal email domain, even one an older organization was given", async () => {
    // Before the free-mail list grew, an organization could take t-online.de from its creator.
    const owner = await p.identity.admin.createUser({ email: "boss@t-online.de", password: PASSWORD });
    const org = await p.identity.admin.createOrganization("Old Mail Co", "old-mail-co");
    await p.identity.admin.addMember(org.id, owner.id, "Owner");
    await db().update(organization).set({ domain: "t-online.de" }).where(eq(organization.id, org.id));
    const value = await wantedRecord(org.id, "boss@t-online.de");
    dns.txt.set("_evalconsole-verification.t-online.de", [value]);
    const res = await verifyDomain(org.id, "boss@t-online.de");
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain("t-online.de is a personal email domain");
    const [row] = await db().select().from(organization).where(eq(organization.id, org.id));
    expect(row?.domainVerifiedAt).toBeNull();
  });

  it("turns SAML off: login/check falls back to the password sign-in and responses are refused", async () => {
    const pending = await startLogin();
    const owner = await as("owner@acme.test");
    const off = await inject("POST", "/saml", { cookie: owner, body: settings({ enabled: "" }) });
    expect(off.statusCode).toBe(303);
    expect((await inject("GET", `/saml?id=${acme}`, { cookie: owner })).body).toContain(
      "Saved but turned off",
    );
    expect(await loginCheck(`org_id=${acme}`)).toEqual({ login_url: `${AUTH}/login` });
    expect(await loginCheck("email=someone%40acme.test")).toEqual({
      login_url: `${AUTH}/login?email=someone%40acme.test`,
    });
    const login = await inject("GET", `/saml/${acme}/login`);
    expect(login.statusCode).toBe(403);
    expect(login.body).toContain("turned off");
    expectRefused(await acs(await respond(pending, "admin@acme.test")), 403, /turned off/);
    // Request ids live in the shared verification table (usable from any instance).
    const open = await db()
      .select()
      .from(verification)
      .where(and(like(verification.identifier, `saml-request:${acme}:%`)));
    expect(open.length).toBeGreaterThan(0);
  });
});
