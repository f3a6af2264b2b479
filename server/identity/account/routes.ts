import type { FastifyInstance } from "fastify";
import type { IdentityContext } from "../context";
import { emptyBody, feRoutes, noStore, parseInput, requireSession, setCookies } from "../fe/plumbing";
import { freshFactorBody } from "../mfa/factor";
import { backupCodes } from "../mfa/setup";
import * as s from "./schemas";
import * as a from "./service";

/**
 * Identity client account calls under /api/fe/v3: mfa_enable, mfa_disable, mfa_backup_codes,
 * security_status, update_email, update_password, update_metadata, delete_me. mfa_disable and
 * mfa_backup_codes need a fresh factor in the body: `code` (TOTP), `backup_code` or `password`.
 */
export function registerAccountRoutes(app: FastifyInstance, ctx: IdentityContext) {
  feRoutes(app, (scope) => {
    noStore(scope);

    scope.post("/security_status", async (req) => {
      parseInput(emptyBody, req.body);
      return a.securityStatus(ctx, await requireSession(ctx, req));
    });

    scope.post("/mfa_enable", async (req, reply) => {
      const session = await requireSession(ctx, req);
      const { code } = parseInput(s.mfaEnableBody, req.body);
      setCookies(reply, await a.enableMfa(ctx, req, session, code));
      // The code was just proven: the backup codes are handed over this once.
      return { backup_codes: await backupCodes(ctx, session.user.id) };
    });

    scope.post("/mfa_disable", async (req) => {
      const session = await requireSession(ctx, req);
      await a.turnOffMfa(ctx, req, session, parseInput(freshFactorBody, req.body));
      return {};
    });

    scope.post("/mfa_backup_codes", async (req) => {
      const session = await requireSession(ctx, req);
      const codes = await a.regenerateBackupCodes(ctx, req, session, parseInput(freshFactorBody, req.body));
      return { backup_codes: codes };
    });

    scope.post("/update_email", async (req) => {
      const session = await requireSession(ctx, req);
      const { new_email, password } = parseInput(s.updateEmailBody, req.body);
      await a.updateEmail(ctx, req, session, new_email, password);
      return {};
    });

    scope.post("/update_password", async (req, reply) => {
      const session = await requireSession(ctx, req);
      const b = parseInput(s.updatePasswordBody, req.body);
      setCookies(
        reply,
        await a.updatePassword(ctx, req, session, b.password, b.current_password ?? b.old_password),
      );
      return {};
    });

    scope.post("/update_metadata", async (req) => {
      const session = await requireSession(ctx, req);
      await a.updateMetadata(ctx, session, parseInput(s.updateMetadataBody, req.body));
      return {};
    });

    scope.delete("/delete_me", async (req, reply) => {
      await requireSession(ctx, req);
      parseInput(emptyBody, req.body);
      setCookies(reply, await a.deleteMe(ctx, req));
      return {};
    });
  });
}
