import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { html, messagePage, page } from "../hosted-pages/html";
import { pageKit } from "../hosted-pages/kit";
import { field } from "../hosted-pages/schemas";
import { unlockAccount } from "./lockout";

/**
 * The emailed unlock link of a locked account. Opening it shows a button (mail scanners that
 * fetch links must not use it up); pressing it lifts the lock once.
 */
export const unlockPages: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const kit = pageKit(ctx);
  const toLogin = { href: "/login", label: "Sign in" };

  app.get(
    "/unlock_account",
    { schema: { querystring: z.object({ token: z.string().max(4096).optional() }) } },
    async (req, reply) => {
      const token = (req.query.token ?? "").slice(0, 200);
      return kit.send(
        reply,
        200,
        page(
          "Unlock your account",
          html`<div class="card"><h1>Unlock your account</h1>
<p class="sub">Your account was locked after many failed sign-ins. Unlock it to sign in with your password again.</p>
<form method="post" action="/unlock_account"><input type="hidden" name="token" value="${token}"><button type="submit">Unlock my account</button></form>
<p class="foot"><a href="/forgot_password">Reset your password instead</a></p></div>`,
        ),
      );
    },
  );

  app.post("/unlock_account", { schema: { body: z.object({ token: field }) } }, async (req, reply) => {
    if (await unlockAccount(ctx.db, ctx.limiter, req.body.token ?? ""))
      return kit.send(
        reply,
        200,
        messagePage("Account unlocked", "Your account is unlocked. You can sign in again.", toLogin),
      );
    return kit.send(
      reply,
      400,
      messagePage(
        "Link not valid",
        "This unlock link is invalid, already used or expired. Resetting your password also unlocks your account.",
        { href: "/forgot_password", label: "Reset password" },
      ),
    );
  });
};
