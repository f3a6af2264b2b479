import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../platform/config";
import { FE_PREFIX } from "./fe/plumbing";
import { messagePage } from "./hosted-pages/html";

// Cross-site request refusal for the whole identity app, in one hook (the hosted pages have no
// check of their own):
//
// - Every write to a hosted page (any path outside /api/), whatever its body type, and form-like
//   writes under /api/ (the content types a page of any site may post without a CORS preflight:
//   urlencoded forms, multipart, text/plain, or no body type at all) must come from the identity
//   service's own pages: Origin equal to AUTH_PUBLIC_URL's origin or, when a browser sent no
//   Origin, a Referer of that origin. `Origin: null` (sandboxed frames, data: pages) is refused.
//   This stops login CSRF (signing a victim into the attacker's account) and any other hosted
//   form acting for a visitor who did not press its button, the console's own origin included.
// - /api/fe/v3: behind the X-CSRF-Token header, an Origin, when present, must be one of the
//   console origins CORS allows.
//
// Exempt by design: the SAML assertion consumer (the IdP's page posts it cross-site; the signed
// assertion is its proof), the social sign-in callback (Apple posts it cross-site; its OAuth state
// is its proof) and the server-to-server backend API (a bearer secret, no cookies).

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]);
const EXEMPT_ROUTES = new Set(["/saml/:orgId/acs", "/api/auth/callback/:provider"]);

const originOf = (url: string | undefined) => {
  if (!url || !URL.canParse(url)) return null;
  const o = new URL(url).origin;
  return o === "null" ? null : o;
};

/** Whether a write came from a page of `own` (exact Origin, or Referer when Origin is absent). */
function fromOwnPage(req: FastifyRequest, own: string): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) return origin === own;
  return originOf(req.headers.referer) === own;
}

function isFormLike(req: FastifyRequest) {
  const type = req.headers["content-type"];
  if (type === undefined || type.trim() === "") return true;
  return FORM_TYPES.has(type.split(";")[0]?.trim().toLowerCase() ?? "");
}

const CROSS_SITE_FORM =
  "This form was sent from another site, so it was not accepted. Open the page again and send it from there.";
const FOREIGN_ORIGIN = "This request came from a site that may not use this service.";

function refuseForm(req: FastifyRequest, reply: FastifyReply, own: string) {
  reply.status(403).header("cache-control", "no-store");
  const wantsHtml = /text\/html/i.test(String(req.headers.accept ?? "")) || !req.url.startsWith("/api/");
  if (!wantsHtml) return reply.send({ error_code: "action_forbidden", user_facing_error: CROSS_SITE_FORM });
  return reply
    .type("text/html; charset=utf-8")
    .send(messagePage("Request refused", CROSS_SITE_FORM, { href: `${own}/login`, label: "Go to sign-in" }));
}

export function refuseCrossSiteRequests(app: FastifyInstance, config: Config) {
  const own = config.authPublicUrl;
  const consoleOrigins = new Set(config.allowedOrigins);
  app.addHook("onRequest", async (req, reply) => {
    if (req.method === "OPTIONS") return;
    const path = req.url.split("?", 1)[0] ?? "";
    if (path === FE_PREFIX || path.startsWith(`${FE_PREFIX}/`)) {
      const origin = req.headers.origin;
      if (origin !== undefined && !consoleOrigins.has(origin))
        return reply
          .status(403)
          .header("cache-control", "no-store")
          .send({ error_code: "action_forbidden", user_facing_error: FOREIGN_ORIGIN });
      return;
    }
    if (SAFE_METHODS.has(req.method)) return;
    if (path.startsWith("/api/backend/") || path === "/api/v1/token_verification_metadata") return;
    if (EXEMPT_ROUTES.has(req.routeOptions.url ?? "")) return;
    const hostedPage = !path.startsWith("/api/");
    if ((!hostedPage && !isFormLike(req)) || fromOwnPage(req, own)) return;
    req.log.info({ origin: req.headers.origin ?? null, path }, "cross-site form post refused");
    return refuseForm(req, reply, own);
  });
}
