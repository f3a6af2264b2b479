import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { emptyBody, noStore } from "../fe/plumbing";
import { sendCookies } from "../http";
import { emailDomain } from "../orgs/domain";
import { spUrls } from "../saml/sp";
import { isSamlRoutable, samlOrgForDomain } from "../saml/store";
import { verifyLoginCode } from "./mfa-login";
import { passwordLogin } from "./password-login";
import { forgotPassword, passwordlessLogin } from "./recovery";
import * as s from "./schemas";
import { resendConfirmation, signUp } from "./signup";
import { loginState } from "./state";

const tags = ["Sign-in"];

/** Identity client sign-in calls under /api/fe/v3: login, login_state, verify, verify_backup, login_passwordless, forgot_password, resend_email_confirmation, signup, login/check. */
export const loginRoutes: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (scope, { ctx }) => {
  noStore(scope);

  scope.get("/login_state", { schema: { tags, summary: "Where the sign-in stands" } }, async (req) => ({
    login_state: await loginState(ctx, req),
  }));

  scope.post(
    "/login",
    { schema: { tags, summary: "Sign in with email and password", body: s.loginBody } },
    async (req, reply) => {
      const out = await passwordLogin(ctx, req, req.body.email, req.body.password);
      sendCookies(reply, out.cookies);
      return { login_state: out.state };
    },
  );

  scope.post(
    "/verify",
    { schema: { tags, summary: "Second factor: a TOTP code", body: s.codeBody } },
    async (req, reply) => {
      const { code, remember_device } = req.body;
      sendCookies(reply, await verifyLoginCode(ctx, req, "totp", code, remember_device ?? false));
      return { login_state: "Finished" };
    },
  );

  scope.post(
    "/verify_backup",
    { schema: { tags, summary: "Second factor: a backup code", body: s.backupBody } },
    async (req, reply) => {
      sendCookies(reply, await verifyLoginCode(ctx, req, "backup", req.body.code));
      return { login_state: "Finished" };
    },
  );

  scope.post(
    "/login_passwordless",
    { schema: { tags, summary: "Email a sign-in link", body: s.passwordlessBody } },
    async (req) => {
      await passwordlessLogin(ctx, req, req.body.email, req.body.create_if_doesnt_exist ?? false);
      return {};
    },
  );

  scope.post(
    "/forgot_password",
    { schema: { tags, summary: "Email a password reset link", body: s.emailBody } },
    async (req) => forgotPassword(ctx, req, req.body.email),
  );

  scope.post(
    "/resend_email_confirmation",
    { schema: { tags, summary: "Send the email confirmation again", body: emptyBody } },
    async (req) => {
      await resendConfirmation(ctx, req);
      return {};
    },
  );

  scope.post(
    "/signup",
    { schema: { tags, summary: "Create an account", body: s.signupBody } },
    async (req, reply) => {
      const { userId, cookies } = await signUp(ctx, req, req.body);
      sendCookies(reply, cookies);
      return { login_state: "ConfirmEmailRequired", user_id: userId };
    },
  );

  // An organization (by id, or the one that verified the email's or the given domain) with SAML
  // sign-in on answers with its SAML sign-in; anything else with the hosted password sign-in.
  // An unverified domain is never routed to SSO.
  scope.get(
    "/login/check",
    { schema: { tags, summary: "Where an email or organization signs in", querystring: s.loginCheckQuery } },
    async (req) => {
      const q = req.query;
      if (q.org_id && !(await ctx.directory.findOrganization(q.org_id)))
        throw new IdentityError("org_not_found");
      const samlOrg = q.org_id
        ? (await isSamlRoutable(ctx.db, q.org_id)) && q.org_id
        : await samlOrgForDomain(ctx.db, q.domain?.trim().toLowerCase() || emailDomain(q.email ?? ""));
      if (samlOrg) return { login_url: spUrls(ctx.config, samlOrg).loginUrl };
      const url = new URL("/login", ctx.config.authPublicUrl);
      if (q.email) url.searchParams.set("email", q.email);
      return { login_url: url.toString() };
    },
  );
};
