import type { FastifyReply, FastifyRequest } from "fastify";

/** Fastify's raw headers as a Fetch `Headers`, as better-auth's API expects. */
export function toHeaders(req: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else headers.set(k, String(v));
  }
  return headers;
}

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

/** The error code better-auth put on an APIError, if that is what was thrown. */
export function authErrorCode(err: unknown): { status: number; code: string } | null {
  if (err && typeof err === "object" && "body" in err && "statusCode" in err) {
    const body = (err as { body?: { code?: string } }).body;
    return { status: Number((err as { statusCode: number }).statusCode), code: body?.code ?? "UNKNOWN" };
  }
  return null;
}
