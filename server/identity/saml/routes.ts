import { eq } from "drizzle-orm";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { organization } from "../../db/schema";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { withRt } from "../hosted-pages/kit";
import { sendCookies } from "../http";
import { clientIp, enforce, LIMITS } from "../login/limits";
import { passwordLogin } from "../login/password-login";
import { type Actor, auditActor, type OrgAccess, orgAccess } from "../orgs/access";
import { type Form, formOf, pageKit } from "../orgs/page-kit";
import { decodeReturnTarget, encodeReturnTarget } from "../return-target";
import { ownershipOf, recordName, recordValue, verifyDomain } from "./domain-ownership";
import {
  completeLink,
  consumePending,
  createPending,
  linkConfirmationEmail,
  type PendingLink,
  readPending,
} from "./linking";
import {
  type SamlSetupView,
  type SamlValues,
  samlLinkConfirmPage,
  samlLinkPage,
  samlMessagePage,
  samlSetupPage,
} from "./pages";
import { canSetupSaml, samlDomainOf } from "./policy";
import { consumeAssertion, enabledConnection, sessionOrSecondFactor } from "./signin";
import { serviceProvider, spMetadata, spUrls } from "./sp";
import { findConnection, normalizeCertificate, saveConnection } from "./store";

// Hosted SAML routes: the set-up page (/saml?id=&rt=) with its domain-ownership check, the SP
// metadata, the SP-initiated sign-in, the assertion consumer service, and linking an existing
// account to the organization's SSO (/saml/link, /saml/link/confirm).

const MAX_ID = 64;

type Checked =
  | { ok: true; input: SamlValues & { pem: string } }
  | { ok: false; errors: Record<string, string> };

/** The set-up form's fields, checked; values are kept as typed for showing them again. */
function checkForm(f: Form): Checked {
  const values: SamlValues = {
    idp_entity_id: (f.idp_entity_id ?? "").trim().slice(0, 2048),
    idp_sso_url: (f.idp_sso_url ?? "").trim().slice(0, 4096),
    idp_certificate: (f.idp_certificate ?? "").slice(0, 40_000),
    enabled: f.enabled === "on",
  };
  const errors: Record<string, string> = {};
  if (!values.idp_entity_id) errors.idp_entity_id = "Please enter the identity provider's entity ID.";
  else if (values.idp_entity_id.length > 1024) errors.idp_entity_id = "The entity ID is too long.";
  let url: URL | null = null;
  try {
    url = new URL(values.idp_sso_url);
  } catch {}
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || !url.hostname)
    errors.idp_sso_url = "Please enter the sign-in URL, starting with https:// (or http://).";
  else if (values.idp_sso_url.length > 2048) errors.idp_sso_url = "The sign-in URL is too long.";
  const pem = values.idp_certificate.trim() ? normalizeCertificate(values.idp_certificate) : null;
  if (!values.idp_certificate.trim())
    errors.idp_certificate = "Please paste the identity provider's signing certificate.";
  else if (!pem)
    errors.idp_certificate =
      "This is not a valid X.509 certificate. Paste it in PEM form (BEGIN CERTIFICATE).";
  if (Object.keys(errors).length || !pem) return { ok: false, errors };
  return { ok: true, input: { ...values, pem } };
}

export function registerSamlRoutes(app: FastifyInstance, ctx: IdentityContext) {
  const { db, config } = ctx;
  const kit = pageKit(ctx);
  const returnOrigins = [...config.allowedOrigins, config.authPublicUrl];
  const toConsole = { href: kit.consoleUrl, label: "Go to the console" };
  const message = (reply: FastifyReply, status: number, title: string, text: string) =>
    kit.send(reply, status, samlMessagePage(title, text, toConsole));

  /** The set-up page's access rule: a member with propelauth::can_setup_saml (an Owner). */
  async function setupAccess(reply: FastifyReply, actor: Actor, orgId: string): Promise<OrgAccess | null> {
    let access: OrgAccess;
    try {
      access = await orgAccess(db, actor, orgId.slice(0, MAX_ID));
    } catch (err) {
      if (!(err instanceof IdentityError)) throw err;
      message(reply, 404, "Organization not found", "You are not a member of this organization.");
      return null;
    }
    if (!access.permissions.has("propelauth::can_setup_saml")) {
      message(
        reply,
        403,
        "Single sign-on",
        `SAML set-up is not available to you: only an Owner of ${access.org.name} can set up single sign-on.`,
      );
      return null;
    }
    if (!canSetupSaml(access)) {
      message(
        reply,
        403,
        "Single sign-on",
        `SAML sign-in is bound to the organization's email domain, and ${access.org.name} has none: ` +
          "set it up while signed in with a company email address (not a personal mailbox).",
      );
      return null;
    }
    return access;
  }

  /** A set-up form post from our own page by a signed-in Owner; null once the reply is sent. */
  async function setupForm(req: FastifyRequest, reply: FastifyReply) {
    if (!kit.sameOrigin(req)) {
      message(reply, 403, "Refused", "This form was sent from another site.");
      return null;
    }
    const actor = await kit.actorOrNull(req);
    if (!actor) {
      reply.redirect("/login", 303);
      return null;
    }
    const f = formOf(req.body);
    const access = await setupAccess(reply, actor, f.org_id ?? "");
    return access ? { f, access } : null;
  }

  /** Back to the set-up page after a form post, with its notice and the return target kept. */
  const backToSetup = (reply: FastifyReply, access: OrgAccess, rt: string | undefined, done: string) =>
    reply.redirect(
      `/saml?id=${encodeURIComponent(access.org.id)}&done=${done}${rt ? `&rt=${encodeURIComponent(rt.slice(0, 4096))}` : ""}`,
      303,
    );

  async function setupView(access: OrgAccess, rt: string | undefined): Promise<SamlSetupView> {
    const orgId = access.org.id;
    const conn = await findConnection(db, orgId);
    const urls = spUrls(config, orgId);
    const here = `${config.authPublicUrl}/saml?id=${encodeURIComponent(orgId)}`;
    const back = decodeReturnTarget(rt, returnOrigins) ?? `/org?id=${encodeURIComponent(orgId)}`;
    const owned = await ownershipOf(db, orgId, samlDomainOf(access) ?? "");
    return {
      orgId,
      orgName: access.org.name,
      domain: owned.domain,
      ownership: {
        recordName: recordName(owned.domain),
        recordValue: recordValue(owned.token),
        verified: owned.verifiedAt !== null,
      },
      sp: { entityId: urls.entityId, acsUrl: urls.acsUrl, metadataUrl: urls.metadataUrl },
      state: conn ? (conn.enabled ? "enabled" : "disabled") : "none",
      values: {
        idp_entity_id: conn?.idpEntityId ?? "",
        idp_sso_url: conn?.idpSsoUrl ?? "",
        idp_certificate: conn?.idpCertificate ?? "",
        enabled: conn ? conn.enabled : true,
      },
      rt: rt?.slice(0, 4096) || undefined,
      testUrl: `${urls.loginUrl}?rt=${encodeURIComponent(encodeReturnTarget(here))}`,
      backUrl: back,
    };
  }

  app.get<{ Querystring: { id?: string; rt?: string; done?: string } }>("/saml", async (req, reply) => {
    const actor = await kit.actorOrNull(req);
    if (!actor) return kit.toLogin(req, reply);
    const access = await setupAccess(reply, actor, String(req.query.id ?? ""));
    if (!access) return reply;
    const view = await setupView(access, req.query.rt);
    if (req.query.done === "saved") view.notice = "SAML settings saved.";
    if (req.query.done === "verified") view.notice = `${view.domain} is verified.`;
    return kit.send(reply, 200, samlSetupPage(view));
  });

  app.post("/saml", async (req, reply) => {
    const posted = await setupForm(req, reply);
    if (!posted) return reply;
    const { f, access } = posted;
    const checked = checkForm(f);
    if (!checked.ok) {
      const view = await setupView(access, f.rt);
      view.values = {
        idp_entity_id: (f.idp_entity_id ?? "").slice(0, 2048),
        idp_sso_url: (f.idp_sso_url ?? "").slice(0, 4096),
        idp_certificate: (f.idp_certificate ?? "").slice(0, 40_000),
        enabled: f.enabled === "on",
      };
      view.errors = checked.errors;
      view.message = "Some fields need your attention.";
      return kit.send(reply, 400, samlSetupPage(view));
    }
    const { input } = checked;
    const domain = samlDomainOf(access);
    if (domain && !access.org.domain)
      await db.update(organization).set({ domain }).where(eq(organization.id, access.org.id));
    await saveConnection(
      db,
      access.org.id,
      {
        idpEntityId: input.idp_entity_id,
        idpSsoUrl: input.idp_sso_url,
        idpCertificate: input.pem,
        enabled: input.enabled,
      },
      auditActor(access),
    );
    return backToSetup(reply, access, f.rt, "saved");
  });

  // The Owner asks us to check the domain's DNS TXT record.
  app.post("/saml/verify_domain", async (req, reply) => {
    const posted = await setupForm(req, reply);
    if (!posted) return reply;
    const { f, access } = posted;
    // Makes sure there is a domain and a token to check.
    await ownershipOf(db, access.org.id, samlDomainOf(access) ?? "");
    try {
      await verifyDomain(db, config, access.org.id);
    } catch (err) {
      if (!(err instanceof IdentityError)) throw err;
      const view = await setupView(access, f.rt);
      view.ownership.error = err.message;
      return kit.send(reply, err.status, samlSetupPage(view));
    }
    return backToSetup(reply, access, f.rt, "verified");
  });

  app.get<{ Params: { orgId: string } }>("/saml/:orgId/metadata", async (req, reply) => {
    const orgId = req.params.orgId.slice(0, MAX_ID);
    const [org] = await db
      .select({ id: organization.id })
      .from(organization)
      .where(eq(organization.id, orgId));
    if (!org) return message(reply, 404, "Organization not found", "There is no such organization.");
    return reply
      .header("cache-control", "no-cache")
      .type("application/samlmetadata+xml; charset=utf-8")
      .send(spMetadata(config, orgId));
  });

  app.get<{ Params: { orgId: string }; Querystring: { rt?: string } }>(
    "/saml/:orgId/login",
    async (req, reply) => {
      try {
        const conn = await enabledConnection(ctx, req.params.orgId.slice(0, MAX_ID));
        // RelayState carries the return target, only when it is one we would follow anyway.
        const rt = req.query.rt && decodeReturnTarget(req.query.rt, returnOrigins) ? req.query.rt : "";
        const url = await serviceProvider(config, db, conn).getAuthorizeUrlAsync(rt, undefined, {});
        return reply.header("cache-control", "no-store").redirect(url, 302);
      } catch (err) {
        if (!(err instanceof IdentityError)) throw err;
        return message(reply, 403, "Single sign-on unavailable", err.message);
      }
    },
  );

  app.post<{ Params: { orgId: string } }>("/saml/:orgId/acs", async (req, reply) => {
    const f = formOf(req.body);
    const orgId = req.params.orgId.slice(0, MAX_ID);
    try {
      const out = await consumeAssertion(ctx, orgId, f.SAMLResponse ?? "");
      const rt = f.RelayState && decodeReturnTarget(f.RelayState, returnOrigins) ? f.RelayState : undefined;
      if (out.kind === "link_required") {
        req.log.info({ orgId }, "SAML sign-in waits for the account to be linked");
        const link: PendingLink = { orgId, userId: out.userId, email: out.email, nameId: out.nameId, rt };
        const token = await createPending(db, "pending", link);
        return kit.send(reply, 403, samlLinkPage({ orgName: out.orgName, email: out.email, token }));
      }
      sendCookies(reply, out.cookies);
      reply.header("cache-control", "no-store");
      // SSO never skips the second factor: an account with MFA goes through the code step first.
      if (out.kind === "second_factor") return reply.redirect(withRt("/login/mfa", rt), 303);
      return reply.redirect(decodeReturnTarget(rt, returnOrigins) ?? kit.consoleUrl, 303);
    } catch (err) {
      if (!(err instanceof IdentityError)) throw err;
      req.log.info({ orgId, code: err.code, reason: err.message }, "SAML sign-in refused");
      const status = err.status === 400 ? 400 : 403;
      const retry = { href: `/saml/${encodeURIComponent(orgId)}/login`, label: "Try again" };
      return kit.send(
        reply,
        status,
        samlMessagePage(
          "Single sign-on failed",
          err.message,
          err.code === "action_disabled" ? toConsole : retry,
        ),
      );
    }
  });

  const orgNameOf = async (orgId: string) =>
    (await db.select({ name: organization.name }).from(organization).where(eq(organization.id, orgId)))[0]
      ?.name ?? "The organization";
  const linkExpired = (reply: FastifyReply) =>
    message(
      reply,
      400,
      "Link expired",
      "This account link has expired or was already used. Please sign in with single sign-on again.",
    );

  // The owner of an existing account links it: with the account's password, or by email.
  app.post("/saml/link", async (req, reply) => {
    if (!kit.sameOrigin(req)) return message(reply, 403, "Refused", "This form was sent from another site.");
    const f = formOf(req.body);
    const token = (f.token ?? "").slice(0, 64);
    const link = await readPending(db, "pending", token);
    if (!link) return linkExpired(reply);
    const orgName = await orgNameOf(link.orgId);
    const view = { orgName, email: link.email, token };
    if (f.action === "email") {
      try {
        await enforce(ctx, `sso-link:email:${link.userId}`, LIMITS.emailPerAddress);
        await enforce(ctx, `email:ip:${clientIp(req)}`, LIMITS.emailPerIp);
        const confirm = await createPending(db, "confirm", link);
        await ctx.mailer.send(linkConfirmationEmail(config.authPublicUrl, link.email, orgName, confirm));
      } catch (err) {
        if (!(err instanceof IdentityError)) throw err;
        return kit.send(reply, err.status, samlLinkPage({ ...view, message: err.message }));
      }
      return kit.send(
        reply,
        200,
        samlMessagePage(
          "Check your email",
          `We sent a link to ${link.email}. Open it to link your account to ${orgName}'s single sign-on, then sign in again.`,
          toConsole,
          "info",
        ),
      );
    }
    const password = (f.password ?? "").slice(0, 128);
    if (!password)
      return kit.send(reply, 400, samlLinkPage({ ...view, passwordError: "Please enter your password." }));
    let out: Awaited<ReturnType<typeof passwordLogin>>;
    try {
      out = await passwordLogin(ctx, req, link.email, password);
      if (out.userId !== link.userId)
        throw new IdentityError("bad_request", "This account changed. Please sign in again.");
      if (!(await consumePending(db, "pending", token))) return linkExpired(reply);
      await completeLink(ctx, link);
    } catch (err) {
      if (!(err instanceof IdentityError)) throw err;
      return kit.send(reply, err.status, samlLinkPage({ ...view, message: err.message }));
    }
    req.log.info({ orgId: link.orgId, userId: link.userId }, "account linked to SSO with its password");
    reply.header("cache-control", "no-store");
    let cookies = out.cookies;
    let needsCode = out.state === "TwoFactorRequired";
    if (out.state === "ConfirmEmailRequired") {
      // The address is confirmed now (completeLink); end the sign-in as SSO would.
      const next = await sessionOrSecondFactor(ctx, link.userId);
      cookies = next.cookies;
      needsCode = next.needsCode;
    }
    sendCookies(reply, cookies);
    if (needsCode) return reply.redirect(withRt("/login/mfa", link.rt), 303);
    return reply.redirect(decodeReturnTarget(link.rt, returnOrigins) ?? kit.consoleUrl, 303);
  });

  // The emailed link: a page with one button, so that a mail scanner opening it changes nothing.
  app.get<{ Querystring: { token?: string } }>("/saml/link/confirm", async (req, reply) => {
    const token = String(req.query.token ?? "").slice(0, 64);
    const link = await readPending(db, "confirm", token);
    if (!link) return linkExpired(reply);
    return kit.send(
      reply,
      200,
      samlLinkConfirmPage({ orgName: await orgNameOf(link.orgId), email: link.email, token }),
    );
  });

  app.post("/saml/link/confirm", async (req, reply) => {
    if (!kit.sameOrigin(req)) return message(reply, 403, "Refused", "This form was sent from another site.");
    const link = await consumePending(db, "confirm", (formOf(req.body).token ?? "").slice(0, 64));
    if (!link) return linkExpired(reply);
    try {
      await completeLink(ctx, link);
    } catch (err) {
      if (!(err instanceof IdentityError)) throw err;
      return message(reply, err.status, "Link failed", err.message);
    }
    req.log.info({ orgId: link.orgId, userId: link.userId }, "account linked to SSO by email");
    const orgName = await orgNameOf(link.orgId);
    return kit.send(
      reply,
      200,
      samlMessagePage(
        "Account linked",
        `Your account ${link.email} is linked to ${orgName}'s single sign-on. Sign in with it now.`,
        { href: `/saml/${encodeURIComponent(link.orgId)}/login`, label: "Sign in with single sign-on" },
      ),
    );
  });
}
