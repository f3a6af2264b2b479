import { randomUUID } from "node:crypto";
import { getSessionCookie } from "better-auth/cookies";
import { fromNodeHeaders } from "better-auth/node";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { impersonationWrite } from "../../db/schema";
import { COOKIE_PREFIX } from "../better-auth/auth";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";

type WithSession = { session: unknown };

/** The operator behind an impersonation session, or null for an ordinary session. */
function impersonatorOf(s: WithSession): string | null {
  return (s.session as { impersonatedBy?: string | null } | null)?.impersonatedBy ?? null;
}

/** The session's user as the actor of an API key change, with the operator behind an impersonation. */
export const keyActorOf = (s: WithSession & { user: { id: string; email: string } }) => ({
  id: s.user.id,
  email: s.user.email,
  impersonatorId: impersonatorOf(s),
});

/**
 * API keys outlive the impersonation session (up to a year), so an operator acting as a user
 * may not mint one in the user's name.
 */
export function refuseKeyCreationWhileImpersonating(s: WithSession) {
  if (impersonatorOf(s))
    throw new IdentityError(
      "action_forbidden",
      "API keys cannot be created while impersonating a user. Stop impersonating first.",
    );
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

declare module "fastify" {
  interface FastifyRequest {
    impersonation?: { operatorUserId: string; targetUserId: string };
  }
}

/**
 * Records every non-GET identity call made with an impersonation session in
 * identity.impersonation_write (operator, target, method, route pattern, status). The route
 * pattern (e.g. /api/fe/v3/api_keys/:id) is stored, never the raw URL, so no token or id in a
 * path or query string reaches the table. Registered on the root app so every route has it.
 */
export function registerImpersonationWriteAudit(app: FastifyInstance, ctx: IdentityContext) {
  app.addHook("onRequest", async (req: FastifyRequest) => {
    if (READS.has(req.method)) return;
    const headers = fromNodeHeaders(req.headers);
    if (!getSessionCookie(headers, { cookiePrefix: COOKIE_PREFIX })) return;
    const found = await ctx.auth.api
      .getSession({ headers, query: { disableRefresh: true } })
      .catch(() => null);
    const operatorUserId = found ? impersonatorOf(found) : null;
    if (found && operatorUserId) req.impersonation = { operatorUserId, targetUserId: found.user.id };
  });

  // On send rather than on response: the row is written before the caller gets the answer.
  app.addHook("onSend", async (req, reply, payload) => {
    const who = req.impersonation;
    if (!who) return payload;
    req.impersonation = undefined;
    try {
      await ctx.db.insert(impersonationWrite).values({
        id: randomUUID(),
        operatorUserId: who.operatorUserId,
        targetUserId: who.targetUserId,
        method: req.method,
        path: req.routeOptions.url ?? "(no route)",
        status: reply.statusCode,
      });
    } catch (err) {
      req.log.error({ err }, "could not record a write made while impersonating");
    }
    return payload;
  });
}
