import type { FastifyReply, FastifyRequest } from "fastify";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { requireSession } from "../fe/plumbing";
import { decodeReturnTarget, encodeReturnTarget } from "../return-target";
import { type Actor, actorOf } from "./access";

// What the hosted organization pages share: HTML replies, the sign-in detour, the same-origin
// rule for form posts and form bodies as plain strings.

export type Form = Record<string, string>;
export type PageKit = ReturnType<typeof pageKit>;

export const formOf = (body: unknown): Form =>
  Object.fromEntries(
    Object.entries((body ?? {}) as Record<string, unknown>).map(([k, v]) => [
      k,
      typeof v === "string" ? v : "",
    ]),
  );

/** The message to show for a refusal: the first field's message, else the error's own. */
export const firstError = (e: IdentityError) => Object.values(e.fieldErrors ?? {})[0] ?? e.message;

export function pageKit(ctx: IdentityContext) {
  const { config } = ctx;
  const returnOrigins = [...config.allowedOrigins, config.authPublicUrl];
  return {
    consoleUrl: `${config.publicUrl}/`,
    /** `rt` when it names an allowed return URL (kept on the page's links and forms), else undefined. */
    keptRt: (rt: unknown): string | undefined =>
      typeof rt === "string" && decodeReturnTarget(rt, returnOrigins) ? rt : undefined,
    /** Where "Back to the console" goes: the decoded `rt` when allowed, else the console. */
    returnUrl: (rt?: string) => decodeReturnTarget(rt, returnOrigins) ?? `${config.publicUrl}/`,
    send: (reply: FastifyReply, status: number, body: string) =>
      reply.status(status).header("cache-control", "no-store").type("text/html; charset=utf-8").send(body),
    /** This page's own address as an `rt` for the sign-in and sign-up pages. */
    returnHere: (req: FastifyRequest) =>
      encodeURIComponent(encodeReturnTarget(`${config.authPublicUrl}${req.url}`)),
    toLogin(req: FastifyRequest, reply: FastifyReply) {
      return reply.redirect(`/login?rt=${this.returnHere(req)}`, 303);
    },
    // Same rule as the sign-in forms: a form posted from another site is refused.
    sameOrigin(req: FastifyRequest) {
      const origin = req.headers.origin;
      return origin === undefined || origin === "null" || origin === config.authPublicUrl;
    },
    async actorOrNull(req: FastifyRequest): Promise<Actor | null> {
      try {
        return actorOf(await requireSession(ctx, req));
      } catch (err) {
        if (err instanceof IdentityError) return null;
        throw err;
      }
    },
  };
}
