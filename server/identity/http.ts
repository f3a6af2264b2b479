import { isAPIError } from "better-auth/api";
import type { FastifyReply } from "fastify";

/**
 * The one way a session cookie reaches the browser: the Set-Cookie headers a sign-in step made
 * (better-auth's response headers, or the cookies our own flows return), added to the reply.
 * Added, never replaced: a step may start one cookie and clear another.
 */
export function sendCookies(reply: FastifyReply, from: Headers | readonly string[] | undefined) {
  const cookies = from === undefined ? [] : Array.isArray(from) ? from : (from as Headers).getSetCookie();
  if (cookies.length) reply.header("set-cookie", [...cookies]);
}

/** PropelAuth's identity error shape. */
export function identityError(
  reply: FastifyReply,
  status: number,
  error_code: string,
  user_facing_error: string,
  field_errors?: Record<string, string>,
) {
  return reply
    .status(status)
    .send({ error_code, user_facing_error, ...(field_errors ? { field_errors } : {}) });
}

/** The HTTP status and code of a refusal by better-auth (its APIError), or null for any other error. */
export function authErrorCode(err: unknown): { status: number; code: string } | null {
  return isAPIError(err) ? { status: err.statusCode, code: err.body?.code ?? "UNKNOWN" } : null;
}
