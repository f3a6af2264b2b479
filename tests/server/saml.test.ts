import { randomUUID } from "node:crypto";
import { and, eq, like } from "drizzle-orm";
import * as samlify from "samlify";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { member, organization, user, verification } from "../../server/db/schema";
import { encodeReturnTarget } from "../../server/identity/return-target";
import { AUTH, backends, CONSOLE, cookieHeader, signIn, startProduct, type TestProduct } from "./harness";

// Per-organization SAML sign-in, driven end to end against the identity app: an Owner sets it up
// through the hosted form, and a samlify identity provider, with a certificate made here, answers
// the AuthnRequests our service provider sends with real signed responses.

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
        ...(o.origin ? { origin: o.origin } : {}),
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

  /** SP-initiated: our /login redirect, read by the IdP. */
  async function startLogin(rt?: string) {
    const res = await inject("GET", `/saml/${acme}/login${rt ? `?rt=${encodeURIComponent(rt)}` : ""}`);
    expect(res.statusCode).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(IDP_SSO);
    const query = Object.fromEntries(location.searchParams);
    const requestInfo = await idp.parseLoginRequest(sp, "redirect", { query });
    return { requestInfo, relayState: query.RelayState ?? "" };
  }

  /** A response to that request, signed by `by`; `tags` override the template's values. */
  async function respond(
    login: Awaited<ReturnType<typeof startLogin>>,
    email: string,
    o: { by?: ReturnType<typeof samlify.IdentityProvider>; tags?: Record<string, string> } = {},
  ) {
    const signer = o.by ?? idp;
    const now = new Date();
    const later = new Date(now.getTime() + 5 * 60_000).toISOString();
    const id = `_${randomUUID()}`;
    const requestId = (login.requestInfo.extract as { request: { id: string } }).request.id;
    const values: Record<string, string> = {
      ID: id,
      AssertionID: `_${randomUUID()}`,
      Destination: `${AUTH}/saml/${acme}/acs`,
      Audience: `${AUTH}/saml/${acme}/metadata`,
      SubjectRecipient: `${AUTH}/saml/${acme}/acs`,
      Issuer: IDP_ENTITY,
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
      sp,
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

  const acs = (samlResponse: string, relayState = "") =>
    inject("POST", `/saml/${acme}/acs`, { body: { SAMLResponse: samlResponse, RelayState: relayState } });
  const refresh = (cookie: string) => inject("GET", "/api/v1/refresh_token", { cookie });
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
    p = await startProduct(backend);
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
    ).toMatchObject([{ domain: null }]);

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

    const again = await startLogin();
    const admin = await acs(await respond(again, "admin@acme.test"));
    expect(admin.statusCode).toBe(303);
    expect(admin.headers.location).toBe(`${CONSOLE}/`);
    const adminInfo = (await refresh(cookieHeader(admin.headers["set-cookie"]))).json();
    expect(adminInfo.org_id_to_org_member_info[acme]).toMatchObject({ user_role: "Admin" });
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
