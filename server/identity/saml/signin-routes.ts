import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { withRt } from "../hosted-pages/kit";
import { field, rtQuery } from "../hosted-pages/schemas";
import { sendCookies } from "../http";
import { createPending, type PendingLink } from "./linking";
import { samlPageKit } from "./page-kit";
import { samlLinkPage, samlMessagePage } from "./pages";
import { consumeAssertion, enabledConnection } from "./signin";
import { serviceProvider, spMetadata } from "./sp";
import { organizationName } from "./store";

// SAML sign-in through an organization's identity provider: the SP metadata, the SP-initiated
// sign-in, and the assertion consumer service the IdP's page posts to (cross-site by design:
// the signed assertion is its proof, see origin-check.ts).

const orgParams = z.object({ orgId: z.string().max(64) });
const acsBody = z.object({ SAMLResponse: field, RelayState: field });

export const samlSignInRoutes: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const { db, config } = ctx;
  const { kit, toConsole } = samlPageKit(ctx);

  app.get("/saml/:orgId/metadata", { schema: { params: orgParams } }, async (req, reply) => {
    const { orgId } = req.params;
    if ((await organizationName(db, orgId)) === null)
      return kit.send(
        reply,
        404,
        samlMessagePage("Organization not found", "There is no such organization.", toConsole),
      );
    return reply
      .header("cache-control", "no-cache")
      .type("application/samlmetadata+xml; charset=utf-8")
      .send(spMetadata(config, orgId));
  });

  app.get(
    "/saml/:orgId/login",
    { schema: { params: orgParams, querystring: rtQuery } },
    async (req, reply) => {
      try {
        const conn = await enabledConnection(ctx, req.params.orgId);
        // RelayState carries the return target, only when it is one we would follow anyway.
        const rt = kit.keptRt(req.query.rt) ?? "";
        const url = await serviceProvider(config, db, conn).getAuthorizeUrlAsync(rt, undefined, {});
        return reply.header("cache-control", "no-store").redirect(url, 302);
      } catch (err) {
        if (!(err instanceof IdentityError)) throw err;
        return kit.send(reply, 403, samlMessagePage("Single sign-on unavailable", err.message, toConsole));
      }
    },
  );

  app.post("/saml/:orgId/acs", { schema: { params: orgParams, body: acsBody } }, async (req, reply) => {
    const f = req.body;
    const { orgId } = req.params;
    try {
      const out = await consumeAssertion(ctx, orgId, f.SAMLResponse ?? "");
      const rt = kit.keptRt(f.RelayState);
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
      return reply.redirect(kit.target(rt), 303);
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
};
