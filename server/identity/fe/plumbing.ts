import { fromNodeHeaders } from "better-auth/node";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";

export const FE_PREFIX = "/api/fe/v3";

/**
 * Registers identity client routes under /api/fe/v3 in their own scope. Every call must carry an
 * X-CSRF-Token header: a cross-site form or image can't set one, and CORS lets only the console's
 * own origins send it.
 */
export function feRoutes(app: FastifyInstance, register: (scope: FastifyInstance) => void) {
  void app.register(
    async (scope) => {
      scope.addHook("onRequest", async (req) => {
        if (req.method === "OPTIONS") return;
        const token = req.headers["x-csrf-token"];
        if (typeof token !== "string" || token.trim() === "")
          throw new IdentityError("action_forbidden", "Missing X-CSRF-Token header.");
      });
      register(scope);
    },
    { prefix: FE_PREFIX },
  );
}

/** Sign-in and account calls are never cached: their answers and cookies are one user's own. */
export function noStore(scope: FastifyInstance) {
  scope.addHook("onSend", async (_req, reply) => {
    reply.header("cache-control", "no-store");
  });
}

/** Sets the session cookies a call produced, if any. */
export function setCookies(reply: FastifyReply, cookies: string[]) {
  if (cookies.length) reply.header("set-cookie", cookies);
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

/**
 * Validates input with a zod schema (use `.strict()` objects so unknown fields are refused);
 * failures become invalid_request_fields with one message per field.
 */
export function parseInput<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const parsed = schema.safeParse(data ?? {});
  if (parsed.success) return parsed.data;
  const fieldErrors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const k of issue.keys) fieldErrors[k] ??= "Unknown field.";
      continue;
    }
    const key = issue.path.length ? issue.path.join(".") : "body";
    fieldErrors[key] ??= issue.message;
  }
  throw new IdentityError("invalid_request_fields", undefined, fieldErrors);
}

/** PropelAuth-style paging: page_number from 0, page_size capped. */
export function paging(pageNumber: number | undefined, pageSize: number | undefined, max = 100) {
  const size = Math.min(Math.max(pageSize ?? 10, 1), max);
  const page = Math.max(pageNumber ?? 0, 0);
  return { pageNumber: page, pageSize: size, offset: page * size };
}
