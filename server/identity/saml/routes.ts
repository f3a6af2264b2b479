import { eq } from "drizzle-orm";
import type { FastifyInstance, FastifyReply } from "fastify";
import { organization } from "../../db/schema";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { type Actor, type OrgAccess, orgAccess } from "../orgs/access";
import { type Form, formOf, pageKit } from "../orgs/page-kit";
import { decodeReturnTarget, encodeReturnTarget } from "../return-target";
import { type SamlSetupView, type SamlValues, samlMessagePage, samlSetupPage } from "./pages";
import { canSetupSaml, samlDomainOf } from "./policy";
import { consumeAssertion, enabledConnection } from "./signin";
import { serviceProvider, spMetadata, spUrls } from "./sp";
import { findConnection, normalizeCertificate, saveConnection } from "./store";

// Hosted SAML routes: the set-up page (/saml?id=&rt=), the SP metadata, the SP-initiated sign-in
// and the assertion consumer service.

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

  async function setupView(access: OrgAccess, rt: string | undefined): Promise<SamlSetupView> {
    const orgId = access.org.id;
    const conn = await findConnection(db, orgId);
    const urls = spUrls(config, orgId);
    const here = `${config.authPublicUrl}/saml?id=${encodeURIComponent(orgId)}`;
    const back = decodeReturnTarget(rt, returnOrigins) ?? `/org?id=${encodeURIComponent(orgId)}`;
    return {
      orgId,
      orgName: access.org.name,
      domain: samlDomainOf(access) ?? "",
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
    return kit.send(reply, 200, samlSetupPage(view));
  });

  app.post("/saml", async (req, reply) => {
    if (!kit.sameOrigin(req)) return message(reply, 403, "Refused", "This form was sent from another site.");
    const actor = await kit.actorOrNull(req);
    if (!actor) return reply.redirect("/login", 303);
    const f = formOf(req.body);
    const access = await setupAccess(reply, actor, f.org_id ?? "");
    if (!access) return reply;
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
    await saveConnection(db, access.org.id, {
      idpEntityId: input.idp_entity_id,
      idpSsoUrl: input.idp_sso_url,
      idpCertificate: input.pem,
      enabled: input.enabled,
    });
    const rt = f.rt ? `&rt=${encodeURIComponent(f.rt.slice(0, 4096))}` : "";
    return reply.redirect(`/saml?id=${encodeURIComponent(access.org.id)}&done=saved${rt}`, 303);
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
      const { cookie } = await consumeAssertion(ctx, orgId, f.SAMLResponse ?? "");
      const target = decodeReturnTarget(f.RelayState, returnOrigins) ?? kit.consoleUrl;
      return reply.header("set-cookie", [cookie]).header("cache-control", "no-store").redirect(target, 303);
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
}
