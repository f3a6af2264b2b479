import type { FastifyInstance, FastifyReply } from "fastify";
import type { IdentityContext } from "../context";
import { feRoutes, parseInput, requireSession } from "../fe/plumbing";
import * as a from "../login/account";
import * as s from "../login/schemas";

const setCookies = (reply: FastifyReply, cookies: string[]) => {
  if (cookies.length) reply.header("set-cookie", cookies);
};

/** Identity client account calls under /api/fe/v3: mfa_enable, mfa_disable, security_status, update_email, update_password, update_metadata, delete_me. */
export function registerAccountRoutes(app: FastifyInstance, ctx: IdentityContext) {
  feRoutes(app, (scope) => {
    scope.addHook("onSend", async (_req, reply) => {
      reply.header("cache-control", "no-store");
    });

    scope.post("/security_status", async (req) => {
      parseInput(s.emptyBody, req.body);
      return a.securityStatus(ctx, await requireSession(ctx, req));
    });

    scope.post("/mfa_enable", async (req, reply) => {
      const session = await requireSession(ctx, req);
      const { code } = parseInput(s.mfaEnableBody, req.body);
      setCookies(reply, await a.enableMfa(ctx, req, session, code));
      return {};
    });

    scope.post("/mfa_disable", async (req) => {
      const session = await requireSession(ctx, req);
      parseInput(s.emptyBody, req.body);
      await a.turnOffMfa(ctx, session);
      return {};
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
      parseInput(s.emptyBody, req.body);
      setCookies(reply, await a.deleteMe(ctx, req));
      return {};
    });
  });
}
