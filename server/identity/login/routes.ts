import type { FastifyInstance } from "fastify";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { emptyBody, feRoutes, noStore, parseInput, setCookies } from "../fe/plumbing";
import { emailDomain } from "../orgs/domain";
import { spUrls } from "../saml/sp";
import { isSamlRoutable, samlOrgForDomain } from "../saml/store";
import { verifyLoginCode } from "./mfa-login";
import { passwordLogin } from "./password-login";
import { forgotPassword, passwordlessLogin } from "./recovery";
import * as s from "./schemas";
import { resendConfirmation, signUp } from "./signup";
import { loginState } from "./state";

/** Identity client sign-in calls under /api/fe/v3: login, login_state, verify, verify_backup, login_passwordless, forgot_password, resend_email_confirmation, signup, login/check. */
export function registerLoginRoutes(app: FastifyInstance, ctx: IdentityContext) {
  feRoutes(app, (scope) => {
    noStore(scope);

    scope.get("/login_state", async (req) => ({ login_state: await loginState(ctx, req) }));

    scope.post("/login", async (req, reply) => {
      const { email, password } = parseInput(s.loginBody, req.body);
      const out = await passwordLogin(ctx, req, email, password);
      setCookies(reply, out.cookies);
      return { login_state: out.state };
    });

    scope.post("/verify", async (req, reply) => {
      const { code, remember_device } = parseInput(s.codeBody, req.body);
      setCookies(reply, await verifyLoginCode(ctx, req, "totp", code, remember_device ?? false));
      return { login_state: "Finished" };
    });

    scope.post("/verify_backup", async (req, reply) => {
      const { code } = parseInput(s.backupBody, req.body);
      setCookies(reply, await verifyLoginCode(ctx, req, "backup", code));
      return { login_state: "Finished" };
    });

    scope.post("/login_passwordless", async (req) => {
      const { email, create_if_doesnt_exist } = parseInput(s.passwordlessBody, req.body);
      await passwordlessLogin(ctx, req, email, create_if_doesnt_exist ?? false);
      return {};
    });

    scope.post("/forgot_password", async (req) => {
      const { email } = parseInput(s.emailBody, req.body);
      return forgotPassword(ctx, req, email);
    });

    scope.post("/resend_email_confirmation", async (req) => {
      parseInput(emptyBody, req.body);
      await resendConfirmation(ctx, req);
      return {};
    });

    scope.post("/signup", async (req, reply) => {
      const body = parseInput(s.signupBody, req.body);
      const { userId, cookies } = await signUp(ctx, req, body);
      setCookies(reply, cookies);
      return { login_state: "ConfirmEmailRequired", user_id: userId };
    });

    // An organization (by id, or the one that verified the email's or the given domain) with SAML
    // sign-in on answers with its SAML sign-in; anything else with the hosted password sign-in.
    // An unverified domain is never routed to SSO.
    scope.get("/login/check", async (req) => {
      const q = parseInput(s.loginCheckQuery, req.query);
      if (q.org_id && !(await ctx.directory.findOrganization(q.org_id)))
        throw new IdentityError("org_not_found");
      const samlOrg = q.org_id
        ? (await isSamlRoutable(ctx.db, q.org_id)) && q.org_id
        : await samlOrgForDomain(ctx.db, q.domain?.trim().toLowerCase() || emailDomain(q.email ?? ""));
      if (samlOrg) return { login_url: spUrls(ctx.config, samlOrg).loginUrl };
      const url = new URL("/login", ctx.config.authPublicUrl);
      if (q.email) url.searchParams.set("email", q.email);
      return { login_url: url.toString() };
    });
  });
}
