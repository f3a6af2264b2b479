import { eq } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { user } from "../../db/schema";
import type { IdentityContext } from "../context";
import { toHeaders } from "../http";
import { pendingConfirmUserId, twoFactorUserId } from "./cookies";

/** The login_state values of the PropelAuth client that this build can produce. */
export type LoginState = "LoginRequired" | "TwoFactorRequired" | "ConfirmEmailRequired" | "Finished";

/** Where this browser stands in the sign-in flow, from its cookies. */
export async function loginState(ctx: IdentityContext, req: FastifyRequest): Promise<LoginState> {
  const session = await ctx.auth.api.getSession({ headers: toHeaders(req) });
  if (session) return "Finished";
  if (await twoFactorUserId(ctx, req)) return "TwoFactorRequired";
  const pending = await pendingConfirmUserId(ctx, req);
  if (pending) {
    const [u] = await ctx.db.select({ verified: user.emailVerified }).from(user).where(eq(user.id, pending));
    // No such user: the decoy of a sign-up with a taken address, which looks like any other.
    if (!u?.verified) return "ConfirmEmailRequired";
  }
  return "LoginRequired";
}
