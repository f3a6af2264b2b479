import helmet from "@fastify/helmet";
import type { FastifyInstance } from "fastify";

/** A content security policy as helmet takes it: directive name → sources. */
export type CspDirectives = Record<string, string[]>;

/**
 * The console's policy: its own scripts only, antd's run-time styles, and calls to its own origin
 * plus the given ones (the API and identity origins that /config.json names: API_PUBLIC_URL and
 * AUTH_PUBLIC_URL), no other host.
 */
export function consoleCsp(connectOrigins: readonly string[] = []): CspDirectives {
  const origins = [...new Set(connectOrigins.map((u) => new URL(u).origin))];
  return {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'", ...origins],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "frame-ancestors": ["'none'"],
  };
}

/** Anything that is not a page (JSON, CSV): nothing may run, nothing may frame it. */
const DATA_CSP: CspDirectives = { "default-src": ["'none'"], "frame-ancestors": ["'none'"] };

const HSTS = "max-age=31536000; includeSubDomains";

/**
 * helmet's security headers on every answer (no MIME sniffing, no framing, a strict referrer
 * policy, cross-origin isolation of windows and resources), with a content security policy chosen
 * once the answer's type is known: the service's page policy for HTML, a deny-all one for data.
 * A route that sets its own policy keeps it (the API docs page does).
 */
export function securityHeaders(app: FastifyInstance, pageCsp: CspDirectives) {
  app.register(helmet, {
    contentSecurityPolicy: false,
    frameguard: { action: "deny" },
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    // HSTS only means something over HTTPS; sent below when the request came that way.
    strictTransportSecurity: false,
  });
  const page = helmet.contentSecurityPolicy({ useDefaults: false, directives: pageCsp });
  const data = helmet.contentSecurityPolicy({ useDefaults: false, directives: DATA_CSP });
  // Directly or through a trusted proxy that says so (TRUST_PROXY).
  app.addHook("onRequest", async (req, reply) => {
    if (req.protocol === "https") reply.header("strict-transport-security", HSTS);
  });
  app.addHook("onSend", async (req, reply, payload) => {
    // A 304 carries no body and no content type, and browsers merge its headers into the cached
    // response: a data policy sent here would replace the cached page's own and break it.
    if (reply.statusCode === 304 || reply.hasHeader("content-security-policy")) return payload;
    const isPage = String(reply.getHeader("content-type") ?? "").startsWith("text/html");
    (isPage ? page : data)(req.raw, reply.raw, () => {});
    return payload;
  });
}
