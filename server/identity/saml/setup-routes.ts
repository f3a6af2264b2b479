import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { fieldErrors } from "../hosted-pages/kit";
import { rt } from "../hosted-pages/schemas";
import { type Actor, auditActor, type OrgAccess, orgAccess } from "../orgs/access";
import { encodeReturnTarget } from "../return-target";
import { ownershipOf, recordName, recordValue, verifyDomain } from "./domain-ownership";
import { samlPageKit } from "./page-kit";
import { type SamlSetupView, samlSetupPage } from "./pages";
import { canSetupSaml, samlDomainOf } from "./policy";
import { type SamlSetupBody, samlSettings, samlSetupBody } from "./setup-form";
import { spUrls } from "./sp";
import { bindDomainIfUnset, findConnection, saveConnection } from "./store";

// The hosted SAML set-up page (/saml?id=&rt=) of an organization's Owner: the identity
// provider's settings and the check that the organization owns its email domain.

const MAX_ID = 64;

const setupQuery = z.object({
  id: z.string().max(4096).optional(),
  rt,
  done: z.string().max(32).optional(),
});

export const samlSetupPages: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const { db, config } = ctx;
  const { kit, message } = samlPageKit(ctx);

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

  /** A set-up form post by a signed-in Owner; null once the reply is sent. */
  async function setupForm(req: FastifyRequest, f: SamlSetupBody, reply: FastifyReply) {
    const actor = await kit.actorOrNull(req);
    if (!actor) {
      reply.redirect("/login", 303);
      return null;
    }
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
      backUrl: kit.allowedTarget(rt) ?? `/org?id=${encodeURIComponent(orgId)}`,
    };
  }

  app.get("/saml", { schema: { querystring: setupQuery } }, async (req, reply) => {
    const actor = await kit.actorOrNull(req);
    if (!actor) return kit.toLogin(req, reply);
    const access = await setupAccess(reply, actor, req.query.id ?? "");
    if (!access) return reply;
    const view = await setupView(access, req.query.rt);
    if (req.query.done === "saved") view.notice = "SAML settings saved.";
    if (req.query.done === "verified") view.notice = `${view.domain} is verified.`;
    return kit.send(reply, 200, samlSetupPage(view));
  });

  app.post("/saml", { schema: { body: samlSetupBody } }, async (req, reply) => {
    const posted = await setupForm(req, req.body, reply);
    if (!posted) return reply;
    const { f, access } = posted;
    const checked = samlSettings.safeParse(f);
    if (!checked.success) {
      const view = await setupView(access, f.rt);
      view.values = {
        idp_entity_id: (f.idp_entity_id ?? "").slice(0, 2048),
        idp_sso_url: (f.idp_sso_url ?? "").slice(0, 4096),
        idp_certificate: (f.idp_certificate ?? "").slice(0, 40_000),
        enabled: f.enabled === "on",
      };
      view.errors = fieldErrors(checked.error);
      view.message = "Some fields need your attention.";
      return kit.send(reply, 400, samlSetupPage(view));
    }
    const input = checked.data;
    const domain = samlDomainOf(access);
    if (domain && !access.org.domain) await bindDomainIfUnset(db, access.org.id, domain);
    await saveConnection(
      db,
      access.org.id,
      {
        idpEntityId: input.idp_entity_id,
        idpSsoUrl: input.idp_sso_url,
        idpCertificate: input.idp_certificate,
        enabled: input.enabled,
      },
      auditActor(access),
    );
    return backToSetup(reply, access, f.rt, "saved");
  });

  // The Owner asks us to check the domain's DNS TXT record.
  app.post("/saml/verify_domain", { schema: { body: samlSetupBody } }, async (req, reply) => {
    const posted = await setupForm(req, req.body, reply);
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
};
