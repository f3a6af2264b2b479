import { fromNodeHeaders } from "better-auth/node";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { FAVICON_SVG } from "../hosted-pages/html";
import { asPageError, pageKit, withRt } from "../hosted-pages/kit";
import { field, noFields, rt, rtQuery } from "../hosted-pages/schemas";
import { sendCookies } from "../http";
import { encodeReturnTarget } from "../return-target";
import { revokeAccessTokens } from "../session/token-version";
import { checkEmailPage, loginPage, signupPage } from "./pages";
import { passwordLogin } from "./password-login";
import { fields } from "./schemas";
import { signUp } from "./signup";

const loginForm = z.object({ email: fields.email, password: fields.password });

const signupForm = z.object({
  first_name: fields.name("First name").default(""),
  last_name: fields.name("Last name").default(""),
  email: fields.email,
  password: fields.newPassword,
});

/** The posted fields, as typed (`rt` may come in the form when not in the URL). */
const loginBody = z.object({ email: field, password: field, rt });
const signupBody = z.object({ first_name: field, last_name: field, email: field, password: field, rt });

/** Hosted sign-in and sign-up (server-rendered forms), and the plain sign-out form. */
export const signInPages: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const kit = pageKit(ctx);

  app.get("/", async (_req, reply) => reply.redirect("/login"));
  app.get("/favicon.svg", async (_req, reply) =>
    reply.type("image/svg+xml").header("cache-control", "public, max-age=86400").send(FAVICON_SVG),
  );

  app.get(
    "/login",
    { schema: { querystring: z.object({ rt, email: z.string().max(4096).optional() }) } },
    async (req, reply) => {
      const session = await ctx.auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
      if (session) return reply.redirect(kit.target(req.query.rt), 303);
      const email = req.query.email?.slice(0, 254);
      return kit.send(reply, 200, loginPage({ rt: req.query.rt, values: email ? { email } : {} }));
    },
  );

  app.post("/login", { schema: { querystring: rtQuery, body: loginBody } }, async (req, reply) => {
    const values = req.body;
    const rt = req.query.rt ?? values.rt;
    const form = kit.postedForm(loginForm, values);
    if ("state" in form) return kit.send(reply, form.status, loginPage({ rt, ...form.state }));
    try {
      const out = await passwordLogin(ctx, req, form.data.email, form.data.password);
      if (out.state === "ConfirmEmailRequired")
        return kit.send(reply, 200, checkEmailPage({ email: form.data.email, rt }), out.cookies);
      sendCookies(reply, out.cookies);
      return reply.redirect(
        out.state === "TwoFactorRequired" ? withRt("/login/mfa", rt) : kit.target(rt),
        303,
      );
    } catch (err) {
      const e = asPageError(err);
      return kit.send(
        reply,
        e.status,
        loginPage({ rt, values: { email: values.email }, message: e.message }),
      );
    }
  });

  app.get("/signup", { schema: { querystring: rtQuery } }, async (req, reply) =>
    kit.send(reply, 200, signupPage({ rt: req.query.rt })),
  );

  app.post("/signup", { schema: { querystring: rtQuery, body: signupBody } }, async (req, reply) => {
    const values = req.body;
    const rt = req.query.rt ?? values.rt;
    const keep = { ...values, password: "" };
    const form = kit.postedForm(signupForm, values, keep);
    if ("state" in form) return kit.send(reply, form.status, signupPage({ rt, ...form.state }));
    try {
      const { cookies } = await signUp(ctx, req, { ...form.data, rt });
      return kit.send(reply, 200, checkEmailPage({ email: form.data.email, rt }), cookies);
    } catch (err) {
      const e = asPageError(err);
      return kit.send(
        reply,
        e.status,
        signupPage({ rt, values: keep, errors: e.errors, message: e.message }),
      );
    }
  });

  // The account page's sign-out button: a plain form, so it works without JavaScript.
  app.post("/logout", { schema: { body: noFields } }, async (req, reply) => {
    const session = await ctx.auth.api
      .getSession({ headers: fromNodeHeaders(req.headers) })
      .catch(() => null);
    try {
      const { headers } = await ctx.auth.api.signOut({
        headers: fromNodeHeaders(req.headers),
        returnHeaders: true,
      });
      sendCookies(reply, headers);
    } catch {
      // Already signed out.
    }
    if (session) await revokeAccessTokens(ctx.db, [session.user.id]);
    return reply.redirect(`/login?rt=${encodeURIComponent(encodeReturnTarget(kit.consoleUrl))}`, 303);
  });
};
