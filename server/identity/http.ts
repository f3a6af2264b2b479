import { isAPIError } from "better-auth/api";
import type { FastifyReply } from "fastify";

/** Copies better-auth's Set-Cookie headers (session start or end) onto the reply. */
export function forwardCookies(from: Headers | undefined, reply: FastifyReply) {
  const cookies = from?.getSetCookie() ?? [];
  if (cookies.length) reply.header("set-cookie", cookies);
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
