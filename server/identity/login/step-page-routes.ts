import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { messagePage } from "../hosted-pages/html";
import { asPageError, backToSignIn, fieldErrors, pageKit, withRt } from "../hosted-pages/kit";
import { field, noFields, rt, rtQuery, token } from "../hosted-pages/schemas";
import { sendCookies } from "../http";
import { verifyLoginCode } from "./mfa-login";
import { checkEmailPage, mfaPage } from "./pages";
import { forgotPassword, passwordlessLogin, redeemMagicLink, resetPassword } from "./recovery";
import { forgotPasswordPage, magicLinkRequestPage, resetPasswordPage } from "./recovery-pages";
import { fields } from "./schemas";
import { confirmEmail, resendConfirmation } from "./signup";

const emailForm = z.object({ email: fields.email });
const resetForm = z.object({ token: z.string().min(1).max(512), password: fields.newPassword });
const codeForm = z.object({ code: fields.code });

const mfaQuery = z.object({ rt, backup: z.string().max(8).optional() });
const tokenQuery = z.object({ rt, token });

/** The second-factor step: the code form, then the session, or the form again with what went wrong. */
function mfaStepPages(
  app: Parameters<FastifyPluginAsyncZod>[0],
  ctx: IdentityContext,
  kit: ReturnType<typeof pageKit>,
) {
  app.get("/login/mfa", { schema: { querystring: mfaQuery } }, async (req, reply) =>
    kit.send(reply, 200, mfaPage({ rt: req.query.rt, backup: req.query.backup === "1" })),
  );

  const codeBody = z.object({ code: field });
  app.post("/login/mfa", { schema: { querystring: mfaQuery, body: codeBody } }, async (req, reply) => {
    const values = req.body;
    const { rt } = req.query;
    const backup = req.query.backup === "1";
    const parsed = codeForm.safeParse(values);
    if (!parsed.success)
      return kit.send(reply, 400, mfaPage({ rt, backup, errors: fieldErrors(parsed.error) }));
    try {
      const cookies = await verifyLoginCode(ctx, req, backup ? "backup" : "totp", parsed.data.code);
      sendCookies(reply, cookies);
      return reply.redirect(kit.target(rt), 303);
    } catch (err) {
      const e = asPageError(err);
      if (e.status === 401) return reply.redirect(withRt("/login", rt), 303);
      return kit.send(reply, e.status, mfaPage({ rt, backup, errors: e.errors, message: e.message }));
    }
  });
}

/**
 * The hosted pages of the sign-in flow after its form: the second-factor step, forgot and reset
 * password, email confirmation and magic links.
 */
export const signInStepPages: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const kit = pageKit(ctx);

  mfaStepPages(app, ctx, kit);

  /**
   * A page asking for an email address (forgot password, magic link): the form, then "Check your
   * email" in `send`'s words, or the form again with what went wrong.
   */
  function emailRequestPage(
    path: string,
    page: typeof forgotPasswordPage,
    send: (req: FastifyRequest, email: string, rt: string | undefined) => Promise<string>,
  ) {
    app.get(path, { schema: { querystring: rtQuery } }, async (req, reply) =>
      kit.send(reply, 200, page({ rt: req.query.rt })),
    );

    app.post(
      path,
      { schema: { querystring: rtQuery, body: z.object({ email: field }) } },
      async (req, reply) => {
        const values = req.body;
        const { rt } = req.query;
        const parsed = emailForm.safeParse(values);
        if (!parsed.success)
          return kit.send(reply, 400, page({ rt, values, errors: fieldErrors(parsed.error) }));
        try {
          const sent = await send(req, parsed.data.email, rt);
          return kit.send(reply, 200, messagePage("Check your email", sent, backToSignIn(rt)));
        } catch (err) {
          const e = asPageError(err);
          return kit.send(reply, e.status, page({ rt, values, message: e.message }));
        }
      },
    );
  }

  emailRequestPage(
    "/forgot_password",
    forgotPasswordPage,
    async (req, email) => (await forgotPassword(ctx, req, email)).message,
  );

  app.get("/reset_password", { schema: { querystring: tokenQuery } }, async (req, reply) =>
    kit.send(reply, 200, resetPasswordPage({ rt: req.query.rt, token: req.query.token ?? "" })),
  );

  const resetBody = z.object({ token: field, password: field });
  app.post("/reset_password", { schema: { querystring: rtQuery, body: resetBody } }, async (req, reply) => {
    const values = req.body;
    const { rt } = req.query;
    const token = values.token ?? "";
    const parsed = resetForm.safeParse(values);
    if (!parsed.success)
      return kit.send(reply, 400, resetPasswordPage({ rt, token, errors: fieldErrors(parsed.error) }));
    try {
      await resetPassword(ctx, parsed.data.token, parsed.data.password);
      return kit.send(
        reply,
        200,
        messagePage("Password changed", "Sign in with your new password.", {
          href: withRt("/login", rt),
          label: "Sign in",
        }),
      );
    } catch (err) {
      const e = asPageError(err);
      return kit.send(reply, e.status, resetPasswordPage({ rt, token, message: e.message }));
    }
  });

  app.get("/confirm_email", { schema: { querystring: tokenQuery } }, async (req, reply) => {
    const { rt } = req.query;
    const res = await confirmEmail(ctx, req, req.query.token ?? "");
    if (!res.ok)
      return kit.send(
        reply,
        400,
        messagePage(
          "Link expired",
          "This confirmation link is invalid or has expired. Sign in to get a new one.",
          { href: withRt("/login", rt), label: "Sign in" },
        ),
      );
    sendCookies(reply, res.cookies);
    if (res.signedIn) return reply.redirect(kit.target(rt), 303);
    if ("needsCode" in res && res.needsCode) return reply.redirect(withRt("/login/mfa", rt), 303);
    return kit.send(
      reply,
      200,
      messagePage("Email confirmed", "Your email address is confirmed.", {
        href: withRt("/login", rt),
        label: "Sign in",
      }),
    );
  });

  app.post(
    "/confirm_email/resend",
    { schema: { querystring: rtQuery, body: noFields } },
    async (req, reply) => {
      const { rt } = req.query;
      try {
        await resendConfirmation(ctx, req);
        return kit.send(reply, 200, checkEmailPage({ rt, notice: "We sent the link again." }));
      } catch (err) {
        const e = asPageError(err);
        if (e.status === 401) return reply.redirect(withRt("/login", rt), 303);
        return kit.send(reply, e.status, checkEmailPage({ rt, message: e.message }));
      }
    },
  );

  emailRequestPage("/magic_link/request", magicLinkRequestPage, async (req, email, rt) => {
    await passwordlessLogin(ctx, req, email, false, rt);
    return "If an account exists for this email, we sent it a sign-in link.";
  });

  // The link from the email. It carries `rt` only when the page asking for it had one.
  app.get("/magic_link", { schema: { querystring: tokenQuery } }, async (req, reply) => {
    const { rt } = req.query;
    try {
      const res = await redeemMagicLink(ctx, req, (req.query.token ?? "").slice(0, 512));
      sendCookies(reply, res.cookies);
      return reply.redirect(res.needsCode ? withRt("/login/mfa", rt) : kit.target(rt), 303);
    } catch (err) {
      const e = asPageError(err);
      return kit.send(
        reply,
        e.status,
        messagePage("Sign-in link", "This sign-in link could not be used.", backToSignIn(rt), e.message),
      );
    }
  });
};
