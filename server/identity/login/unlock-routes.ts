import type { FastifyInstance } from "fastify";
import type { IdentityContext } from "../context";
import { html, page } from "../hosted-pages/html";
import { asStrings, pageKit } from "../hosted-pages/kit";
import { unlockAccount } from "./lockout";
import { messagePage } from "./pages";

/**
 * The emailed unlock link of a locked account. Opening it shows a button (mail scanners that
 * fetch links must not use it up); pressing it lifts the lock once.
 */
export function registerUnlockRoutes(app: FastifyInstance, ctx: IdentityContext) {
  const kit = pageKit(ctx);
  const toLogin = { href: "/login", label: "Sign in" };

  app.get<{ Querystring: { token?: string } }>("/unlock_account", async (req, reply) => {
    const token = typeof req.query.token === "string" ? req.query.token.slice(0, 200) : "";
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
  });

  app.post("/unlock_account", async (req, reply) => {
    const { token = "" } = asStrings(req.body);
    if (await unlockAccount(ctx.db, token))
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
}
