import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { withRt } from "../hosted-pages/kit";
import { field } from "../hosted-pages/schemas";
import { sendCookies } from "../http";
import { clientIp, enforce, LIMITS } from "../login/limits";
import { passwordLogin } from "../login/password-login";
import { completeLink, consumePending, createPending, linkConfirmationEmail, readPending } from "./linking";
import { samlPageKit } from "./page-kit";
import { samlLinkConfirmPage, samlLinkPage, samlMessagePage } from "./pages";
import { sessionOrSecondFactor } from "./signin";
import { organizationName } from "./store";

// Linking an existing account to its organization's SSO, after a SAML sign-in found the account
// not linked yet: with the account's password (/saml/link), or by an emailed link
// (/saml/link/confirm).

const linkBody = z.object({ token: field, action: field, password: field });
const confirmBody = z.object({ token: field });

export const samlLinkRoutes: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const { db, config } = ctx;
  const { kit, toConsole, message } = samlPageKit(ctx);
  const orgNameOf = async (orgId: string) => (await organizationName(db, orgId)) ?? "The organization";
  const linkExpired = (reply: FastifyReply) =>
    message(
      reply,
      400,
      "Link expired",
      "This account link has expired or was already used. Please sign in with single sign-on again.",
    );

  // The owner of an existing account links it: with the account's password, or by email.
  app.post("/saml/link", { schema: { body: linkBody } }, async (req, reply) => {
    const f = req.body;
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
    return reply.redirect(kit.target(link.rt), 303);
  });

  // The emailed link: a page with one button, so that a mail scanner opening it changes nothing.
  app.get(
    "/saml/link/confirm",
    { schema: { querystring: z.object({ token: z.string().max(4096).optional() }) } },
    async (req, reply) => {
      const token = (req.query.token ?? "").slice(0, 64);
      const link = await readPending(db, "confirm", token);
      if (!link) return linkExpired(reply);
      return kit.send(
        reply,
        200,
        samlLinkConfirmPage({ orgName: await orgNameOf(link.orgId), email: link.email, token }),
      );
    },
  );

  app.post("/saml/link/confirm", { schema: { body: confirmBody } }, async (req, reply) => {
    const link = await consumePending(db, "confirm", (req.body.token ?? "").slice(0, 64));
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
};
