import { fromNodeHeaders } from "better-auth/node";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { identityError, sendCookies } from "../http";
import { encodeReturnTarget } from "../return-target";
import { revokeAccessTokens } from "./token-version";

const tags = ["Session"];
// Other parameters are left alone, as PropelAuth's server does.
const refreshQuery = z.object({ active_org_id: z.string().optional() });

/** The two calls @propelauth/javascript makes under /api/v1: refresh_token and logout. */
export const sessionRoutes: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (app, { ctx }) => {
  const { auth, config, directory, tokens } = ctx;

  const refresh = { tags, summary: "A new access token for the session", querystring: refreshQuery };
  app.get("/refresh_token", { schema: refresh }, async (req, reply) => {
    reply.header("cache-control", "no-store");
    const session = await auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
    if (!session) return identityError(reply, 401, "not_logged_in", "You are not logged in.");
    // An operator's impersonation session: the client shows who is really acting.
    const impersonatorId = (session.session as { impersonatedBy?: string | null }).impersonatedBy;
    // The user (and its token version) first, then the memberships: a role change or removal
    // bumps the version in its own transaction, so memberships read after an old version can only
    // be newer than it (that token is refused and refreshed), never older than the version.
    const user = await directory.findUser(session.user.id, new Date(session.session.updatedAt));
    const [memberships, operator] = await Promise.all([
      directory.listMemberships(session.user.id),
      impersonatorId ? directory.findUser(impersonatorId) : null,
    ]);
    if (!user) return identityError(reply, 401, "not_logged_in", "You are not logged in.");
    const activeOrgId = req.query.active_org_id;
    // The client maps a 401 here to "user_not_in_org".
    if (activeOrgId !== undefined && !memberships.some((m) => m.orgId === activeOrgId))
      return identityError(reply, 401, "user_not_in_org", "You are not a member of this organization.");
    return tokens.authResponse(user, memberships, {
      ...(activeOrgId ? { activeOrgId } : {}),
      ...(operator ? { impersonator: { user_id: operator.id, email: operator.email } } : {}),
    });
  });

  // Whatever the body (the client sends none): logging out never fails on input.
  app.post("/logout", { schema: { tags, summary: "End the session" } }, async (req, reply) => {
    const session = await auth.api.getSession({ headers: fromNodeHeaders(req.headers) }).catch(() => null);
    try {
      const { headers } = await auth.api.signOut({
        headers: fromNodeHeaders(req.headers),
        returnHeaders: true,
      });
      sendCookies(reply, headers);
    } catch {
      // No session: logging out is already done; the client still needs JSON.
    }
    // The access tokens handed out for this user stop working on the product API too.
    if (session) await revokeAccessTokens(ctx.db, [session.user.id]);
    const back = encodeReturnTarget(`${config.publicUrl}/`);
    return { redirect_to: `${config.authPublicUrl}/login?rt=${encodeURIComponent(back)}` };
  });
};
