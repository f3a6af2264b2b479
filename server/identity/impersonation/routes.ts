import { fromNodeHeaders } from "better-auth/node";
import { eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { user } from "../../db/schema";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { sessionOf, signedIn } from "../fe/plumbing";
import { authErrorCode, sendCookies } from "../http";
import { revokeAccessTokens } from "../session/token-version";
import { createImpersonationAudit } from "./audit";
import { isOperator } from "./operators";

const tags = ["Impersonation"];
const startBody = z.object({ user_email: z.string().trim().toLowerCase().email().max(254) }).strict();

/** better-auth's refusals (e.g. impersonating another operator) in our error catalogue. */
function mapAuthError(err: unknown): never {
  const known = authErrorCode(err);
  if (known && known.status === 403)
    throw new IdentityError("action_forbidden", "You may not impersonate this user.");
  if (known && known.status === 404) throw new IdentityError("user_not_found");
  if (known && known.status < 500) throw new IdentityError("bad_request");
  throw err;
}

/**
 * Operator impersonation under /api/fe/v3: POST /impersonate {user_email} swaps the operator's
 * session cookie for one of the target user (better-auth keeps the operator's session aside);
 * POST /stop_impersonating swaps it back. Both are recorded in the impersonation audit (the
 * audit of writes made while impersonating is a root hook, see writes.ts).
 */
export const impersonationRoutes: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (
  scope,
  { ctx },
) => {
  const audit = createImpersonationAudit(ctx.db);

  // Who may impersonate is settled before the body is looked at.
  const operatorOnly = async (req: FastifyRequest) => {
    const found = sessionOf(req);
    if (!isOperator(found.user as { role?: string | null }))
      throw new IdentityError("action_forbidden", "Only provider operators may impersonate users.");
    if ((found.session as { impersonatedBy?: string | null }).impersonatedBy)
      throw new IdentityError("action_forbidden", "Stop the current impersonation first.");
  };

  scope.post(
    "/impersonate",
    {
      preValidation: [signedIn(ctx), operatorOnly],
      schema: { tags, summary: "Act as a user (provider operators)", body: startBody },
    },
    async (req, reply) => {
      const found = sessionOf(req);
      const { user_email } = req.body;
      const [target] = await ctx.db
        .select({ id: user.id, email: user.email })
        .from(user)
        .where(eq(user.email, user_email));
      if (!target) throw new IdentityError("user_not_found");
      if (target.id === found.user.id)
        throw new IdentityError("bad_request", "You cannot impersonate yourself.");
      const { headers } = await ctx.auth.api
        .impersonateUser({
          body: { userId: target.id },
          headers: fromNodeHeaders(req.headers),
          returnHeaders: true,
        })
        .catch(mapAuthError);
      // Recorded before the cookie leaves: if the audit write fails, the client never gets the session.
      await audit.started({ id: found.user.id, email: found.user.email }, target);
      sendCookies(reply, headers);
      return { impersonated_user: { user_id: target.id, email: target.email } };
    },
  );

  // A plain session lookup, not signedIn: stopping must work even if the target was disabled.
  scope.post(
    "/stop_impersonating",
    { schema: { tags, summary: "Back to the operator's own session" } },
    async (req, reply) => {
      const found = await ctx.auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
      if (!found) throw new IdentityError("not_logged_in");
      const operatorId = (found.session as { impersonatedBy?: string | null }).impersonatedBy;
      if (!operatorId) throw new IdentityError("bad_request", "You are not impersonating anyone.");
      const { headers } = await ctx.auth.api
        .stopImpersonating({ headers: fromNodeHeaders(req.headers), returnHeaders: true })
        .catch(mapAuthError);
      const [operator] = await ctx.db
        .select({ id: user.id, email: user.email })
        .from(user)
        .where(eq(user.id, operatorId));
      await audit.stopped(operator ?? { id: operatorId, email: "" }, {
        id: found.user.id,
        email: found.user.email,
      });
      // Access tokens minted during the impersonation stop acting as the user (the user's own
      // console refreshes its token once).
      await revokeAccessTokens(ctx.db, [found.user.id]);
      sendCookies(reply, headers);
      return {};
    },
  );
};
