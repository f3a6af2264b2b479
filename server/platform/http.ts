import { createHash } from "node:crypto";
import cors from "@fastify/cors";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { isDatabaseUnavailable } from "./database";

/** One registered route: what tests and tools enumerate (e.g. the tenant isolation matrix). */
export type RegisteredRoute = { method: string; url: string };

const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route registered on an app made by createHttpApp, HEAD and OPTIONS left out. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registered.get(app) ?? [];
}

/** How a service renders an error: the product API's {"error": {code, message}} by default. */
export type ErrorShape = (code: string, message: string) => unknown;
const productErrorShape: ErrorShape = (code, message) => ({ error: { code, message } });

/**
 * The console's policy: its own scripts only, antd's run-time styles, and calls to its own origin
 * plus the given ones (the API and identity origins that /config.json names: API_PUBLIC_URL and
 * AUTH_PUBLIC_URL), no other host.
 */
export function consoleCsp(connectOrigins: readonly string[] = []): string {
  const origins = [...new Set(connectOrigins.map((u) => new URL(u).origin))];
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    ["connect-src 'self'", ...origins].join(" "),
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Anything that is not HTML (JSON, CSV): nothing may run, nothing may frame it. */
const DATA_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Hashes of the inline scripts of an HTML page, so a page may carry its own small script. */
function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi))
    hashes.push(
      `'sha256-${createHash("sha256")
        .update(m[1] ?? "")
        .digest("base64")}'`,
    );
  return hashes;
}

/**
 * Security headers on every answer: no MIME sniffing, no framing, a strict referrer policy, a
 * content security policy (the service's for HTML, a deny-all one for data) and HSTS when the
 * request came over HTTPS (directly or through a proxy that says so).
 */
function securityHeaders(app: FastifyInstance, htmlCsp: string) {
  app.addHook("onSend", async (req, reply, payload) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("x-frame-options", "DENY");
    reply.header("referrer-policy", "strict-origin-when-cross-origin");
    if (req.protocol === "https")
      reply.header("strict-transport-security", "max-age=31536000; includeSubDomains");
    // A 304 carries no body and no content type, and browsers merge its headers into the cached
    // response: a data policy sent here would replace the cached page's own and break it.
    if (!reply.hasHeader("content-security-policy") && reply.statusCode !== 304) {
      const type = String(reply.getHeader("content-type") ?? "");
      if (type.startsWith("text/html")) {
        const hashes = typeof payload === "string" ? inlineScriptHashes(payload) : [];
        const csp = hashes.length
          ? htmlCsp.replace(
              /script-src ([^;]*)/,
              (_m, list: string) => `script-src ${list} ${hashes.join(" ")}`,
            )
          : htmlCsp;
        reply.header("content-security-policy", csp);
      } else reply.header("content-security-policy", DATA_CSP);
    }
    return payload;
  });
}

/** TRUST_PROXY as Fastify takes it: a hop count trusts the first n hops (Fastify's own rule). */
function trustProxyOption(t: false | number | string[]) {
  return typeof t === "number" ? (_address: string, hop: number) => hop < t : t;
}

/** A Fastify app with our defaults: shared JSON logger, request ids, bounded bodies, security headers. */
export function createHttpApp(
  logger: FastifyBaseLogger,
  opts: { errorShape?: ErrorShape; htmlCsp?: string; trustProxy?: false | number | string[] } = {},
): FastifyInstance {
  const shape = opts.errorShape ?? productErrorShape;
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: 1024 * 1024,
    // X-Forwarded-For / -Proto count only from the configured proxies (TRUST_PROXY); by default
    // nobody is trusted, so a client cannot pick its own address for the per-IP limits.
    trustProxy: trustProxyOption(opts.trustProxy ?? false),
    requestIdHeader: "x-request-id",
    // Errors raised before routing (a bad URL encoding, an over-long path parameter) skip the
    // app's error handler; answer them in the service's JSON error shape like every other refusal.
    frameworkErrors: (err, _req, reply) => {
      const tooLong = err.code === "FST_ERR_MAX_PARAM_LENGTH";
      void (reply as unknown as FastifyReply)
        .status(tooLong ? 414 : 400)
        .send(
          tooLong
            ? shape("uri_too_long", "A path parameter is too long.")
            : shape("bad_request", "The URL is not valid."),
        );
    },
  }) as unknown as FastifyInstance;
  securityHeaders(app, opts.htmlCsp ?? consoleCsp());
  databaseUnavailableIs503(app, opts.errorShape ? null : shape);
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook("onRoute", (r) => {
    for (const method of Array.isArray(r.method) ? r.method : [r.method])
      if (method !== "HEAD" && method !== "OPTIONS") routes.push({ method, url: r.url });
  });
  return app;
}

/**
 * While the database is away (restarting, failing over, unreachable) a call fails for a reason
 * that is no fault of the caller's and passes: answer 503 with Retry-After, which clients and
 * load balancers retry, instead of the 500 of an unexpected error. The service's own error
 * handler still renders and logs the failure; this only corrects the status and, for the product
 * API's shape, the code and message (a service with its own shape keeps its body).
 */
function databaseUnavailableIs503(app: FastifyInstance, shape: ErrorShape | null) {
  const unavailable = new WeakSet<FastifyRequest>();
  app.addHook("onError", async (req, _reply, err) => {
    if (isDatabaseUnavailable(err)) unavailable.add(req);
  });
  app.addHook("onSend", async (req, reply, payload) => {
    if (!unavailable.has(req) || reply.statusCode < 500) return payload;
    reply.status(503).header("retry-after", "1");
    return shape
      ? JSON.stringify(shape("database_unavailable", "The database is unavailable. Please try again."))
      : payload;
  });
}

/** CORS with the exact origin echoed and credentials allowed, for the listed origins only. */
export async function allowOrigins(app: FastifyInstance, origins: readonly string[], headers: string[]) {
  await app.register(cors, {
    origin: (origin, cb) => cb(null, origin !== undefined && origins.includes(origin) ? origin : false),
    credentials: true,
    methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    allowedHeaders: headers,
    maxAge: 600,
  });
}

/**
 * JSON bodies, where an empty body is no body: clients that always send Content-Type:
 * application/json send none on DELETE or on PropelAuth's logout. Bad JSON is a 400.
 */
export function acceptEmptyJsonBodies(app: FastifyInstance) {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    if (body === "") return done(null, undefined);
    try {
      const text = body as string;
      // Keys that could reach an object's prototype when merged are refused (a plain scan first,
      // so ordinary bodies pay nothing).
      const parsed =
        text.includes("__proto__") || text.includes("constructor")
          ? JSON.parse(text, (key, value) => {
              if (
                key === "__proto__" ||
                (key === "constructor" && value && typeof value === "object" && "prototype" in value)
              )
                throw new SyntaxError("forbidden key");
              return value;
            })
          : JSON.parse(text);
      done(null, parsed);
    } catch {
      done(
        Object.assign(new SyntaxError("The request body is not valid JSON."), { statusCode: 400 }),
        undefined,
      );
    }
  });
}
