import { fromNodeHeaders } from "better-auth/node";
import { eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { user } from "../../db/schema";
import { confirmationPendingUser, twoFactorChallengeUser } from "../better-auth/adapter";
import type { IdentityContext } from "../context";

/** The login_state values of the PropelAuth client that this build can produce. */
export type LoginState = "LoginRequired" | "TwoFactorRequired" | "ConfirmEmailRequired" | "Finished";

/** Where this browser stands in the sign-in flow, from its cookies. */
export async function loginState(ctx: IdentityContext, req: FastifyRequest): Promise<LoginState> {
  const headers = fromNodeHeaders(req.headers);
  const session = await ctx.auth.api.getSession({ headers });
  if (session) return "Finished";
  if (await twoFactorChallengeUser(ctx.auth, headers)) return "TwoFactorRequired";
  const pending = await confirmationPendingUser(ctx.auth, headers);
  if (pending) {
    const [u] = await ctx.db.select({ verified: user.emailVerified }).from(user).where(eq(user.id, pending));
    // No such user: the decoy of a sign-up with a taken address, which looks like any other.
    if (!u?.verified) return "ConfirmEmailRequired";
  }
  return "LoginRequired";
}
