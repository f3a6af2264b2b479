import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { IdentityContext } from "../context";
import { emptyBody, noStore, requireSession, sessionOf, signedIn } from "../fe/plumbing";
import { sendCookies } from "../http";
import { freshFactorBody } from "../mfa/factor";
import { backupCodes } from "../mfa/setup";
import * as s from "./schemas";
import * as a from "./service";

const tags = ["Account"];

/**
 * Identity client account calls under /api/fe/v3: mfa_enable, mfa_disable, mfa_backup_codes,
 * security_status, update_email, update_password, update_metadata, delete_me. mfa_disable and
 * mfa_backup_codes need a fresh factor in the body: `code` (TOTP), `backup_code` or `password`.
 * Signed-in calls check the session (preValidation) before the body, as clients expect.
 */
export const accountRoutes: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (scope, { ctx }) => {
  noStore(scope);
  const preValidation = signedIn(ctx);

  // The body first, then the session: a malformed call is a 400 signed in or not.
  scope.post(
    "/security_status",
    { schema: { tags, summary: "Password, MFA and recent security events", body: emptyBody } },
    async (req) => a.securityStatus(ctx, await requireSession(ctx, req)),
  );

  scope.post(
    "/mfa_enable",
    { preValidation, schema: { tags, summary: "Turn on TOTP multi-factor sign-in", body: s.mfaEnableBody } },
    async (req, reply) => {
      const session = sessionOf(req);
      sendCookies(reply, await a.enableMfa(ctx, req, session, req.body.code));
      // The code was just proven: the backup codes are handed over this once.
      return { backup_codes: await backupCodes(ctx, session.user.id) };
    },
  );

  scope.post(
    "/mfa_disable",
    { preValidation, schema: { tags, summary: "Turn off multi-factor sign-in", body: freshFactorBody } },
    async (req) => {
      await a.turnOffMfa(ctx, req, sessionOf(req), req.body);
      return {};
    },
  );

  scope.post(
    "/mfa_backup_codes",
    { preValidation, schema: { tags, summary: "New backup codes", body: freshFactorBody } },
    async (req) => ({ backup_codes: await a.regenerateBackupCodes(ctx, req, sessionOf(req), req.body) }),
  );

  scope.post(
    "/update_email",
    { preValidation, schema: { tags, summary: "Change the email address", body: s.updateEmailBody } },
    async (req) => {
      await a.updateEmail(ctx, req, sessionOf(req), req.body.new_email, req.body.password);
      return {};
    },
  );

  scope.post(
    "/update_password",
    { preValidation, schema: { tags, summary: "Set or change the password", body: s.updatePasswordBody } },
    async (req, reply) => {
      const b = req.body;
      const current = b.current_password ?? b.old_password;
      sendCookies(reply, await a.updatePassword(ctx, req, sessionOf(req), b.password, current));
      return {};
    },
  );

  scope.post(
    "/update_metadata",
    { preValidation, schema: { tags, summary: "Change names and properties", body: s.updateMetadataBody } },
    async (req) => {
      await a.updateMetadata(ctx, sessionOf(req), req.body);
      return {};
    },
  );

  scope.delete(
    "/delete_me",
    { preValidation, schema: { tags, summary: "Delete the account", body: emptyBody } },
    async (req, reply) => {
      sendCookies(reply, await a.deleteMe(ctx, req));
      return {};
    },
  );
};
