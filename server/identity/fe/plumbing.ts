import { fromNodeHeaders } from "better-auth/node";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";

export const FE_PREFIX = "/api/fe/v3";

/**
 * The scope of the identity client routes under /api/fe/v3. Every call must carry an
 * X-CSRF-Token header: a cross-site form or image can't set one, and CORS lets only the console's
 * own origins send it. Checked in onRequest, before the session or the input.
 */
export function requireCsrfHeader(scope: FastifyInstance) {
  scope.addHook("onRequest", async (req) => {
    if (req.method === "OPTIONS") return;
    const token = req.headers["x-csrf-token"];
    if (typeof token !== "string" || token.trim() === "")
      throw new IdentityError("action_forbidden", "Missing X-CSRF-Token header.");
  });
  scope.decorateRequest("signedIn", null);
}

/** Sign-in and account calls are never cached: their answers and cookies are one user's own. */
export function noStore(scope: FastifyInstance) {
  scope.addHook("onSend", async (_req, reply) => {
    reply.header("cache-control", "no-store");
  });
}

export type SessionUser = Awaited<ReturnType<typeof requireSession>>;

/** The signed-in user of this request, or not_logged_in / account_disabled. */
export async function requireSession(ctx: IdentityContext, req: FastifyRequest) {
  const found = await ctx.auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
  if (!found) throw new IdentityError("not_logged_in");
  if ((found.user as { banned?: boolean | null }).banned) throw new IdentityError("account_disabled");
  return found;
}

/** The body of calls that take none: anything sent is refused. */
export const emptyBody = z.object({}).strict();

declare module "fastify" {
  interface FastifyRequest {
    /** The caller's session, on routes whose preValidation is `signedIn`. */
    signedIn: SessionUser | null;
  }
}

/**
 * A route's preValidation hook: the caller must be signed in. It runs before the schemas, so a
 * signed-out call is a 401 whatever its input (as when handlers checked the session first).
 */
export const signedIn = (ctx: IdentityContext) => async (req: FastifyRequest) => {
  req.signedIn = await requireSession(ctx, req);
};

/** The session `signedIn` found for this request. */
export function sessionOf(req: FastifyRequest): SessionUser {
  if (!req.signedIn) throw new Error(`${req.routeOptions.url} has no signedIn hook`);
  return req.signedIn;
}

/** PropelAuth-style paging: page_number from 0, page_size capped. */
export function paging(pageNumber: number | undefined, pageSize: number | undefined, max = 100) {
  const size = Math.min(Math.max(pageSize ?? 10, 1), max);
  const page = Math.max(pageNumber ?? 0, 0);
  return { pageNumber: page, pageSize: size, offset: page * size };
}
