import cors from "@fastify/cors";
import formbody from "@fastify/formbody";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { isDatabaseUnavailable } from "./database";
import { type CspDirectives, consoleCsp, securityHeaders } from "./security-headers";

/** One registered route: what tests and tools enumerate (e.g. the tenant isolation matrix). */
type RegisteredRoute = { method: string; url: string };

const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route registered on an app made by createHttpApp, HEAD and OPTIONS left out. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registered.get(app) ?? [];
}

/** How a service renders an error: the product API's {"error": {code, message}} by default. */
export type ErrorShape = (code: string, message: string) => unknown;
const productErrorShape: ErrorShape = (code, message) => ({ error: { code, message } });

/** TRUST_PROXY as Fastify takes it: a hop count trusts the first n hops (Fastify's own rule). */
function trustProxyOption(t: false | number | string[]) {
  return typeof t === "number" ? (_address: string, hop: number) => hop < t : t;
}

/** A Fastify app with our defaults: shared JSON logger, request ids, bounded bodies, security headers. */
export function createHttpApp(
  logger: FastifyBaseLogger,
  opts: { errorShape?: ErrorShape; htmlCsp?: CspDirectives; trustProxy?: false | number | string[] } = {},
): FastifyInstance {
  const shape = opts.errorShape ?? productErrorShape;
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: 1024 * 1024,
    // X-Forwarded-For / -Proto count only from the configured proxies (TRUST_PROXY); by default
    // nobody is trusted, so a client cannot pick its own address for the per-IP limits.
    trustProxy: trustProxyOption(opts.trustProxy ?? false),
    requestIdHeader: "x-request-id",
    // Keys that could reach an object's prototype when a parsed body is merged: a 400.
    onProtoPoisoning: "error",
    onConstructorPoisoning: "error",
    // Errors raised before routing (a bad URL encoding, an over-long path parameter) skip the
    // app's error handler; answer them in the service's JSON error shape like every other refusal.
    frameworkErrors: (err, _req, reply) => {
      const tooLong = err.code === "FST_ERR_MAX_PARAM_LENGTH";
      void (reply as unknown as FastifyReply)
        .status(tooLong ? 414 : 400)
        .send(
          tooLong
            ? shape("uri_too_long", "A path parameter is too long.")
            : shape("invalid_request", "The URL is not valid."),
        );
    },
  }) as unknown as FastifyInstance;
  securityHeaders(app, opts.htmlCsp ?? consoleCsp());
  // The product API's error handler answers these itself; a service with its own shape gets the
  // status corrected here.
  if (opts.errorShape) databaseUnavailableIs503(app);
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
 * handler still renders and logs the failure; this only corrects the status.
 */
function databaseUnavailableIs503(app: FastifyInstance) {
  const unavailable = new WeakSet<FastifyRequest>();
  app.addHook("onError", async (req, _reply, err) => {
    if (isDatabaseUnavailable(err)) unavailable.add(req);
  });
  app.addHook("onSend", async (req, reply, payload) => {
    if (!unavailable.has(req) || reply.statusCode < 500) return payload;
    reply.status(503).header("retry-after", "1");
    return payload;
  });
}

/**
 * Browsers may keep a preflight's answer this long: two hours, the most Chromium keeps one. Every
 * session refresh is preflighted (the PropelAuth client sends it with Content-Type:
 * application/json), so a visit within that time of the last one saves a round trip before its
 * session; the real answer is still checked against the origins on every request.
 */
const PREFLIGHT_MAX_AGE_S = 7200;

/** CORS with the exact origin echoed and credentials allowed, for the listed origins only. */
export async function allowOrigins(app: FastifyInstance, origins: readonly string[], headers: string[]) {
  await app.register(cors, {
    origin: (origin, cb) => cb(null, origin !== undefined && origins.includes(origin) ? origin : false),
    credentials: true,
    methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    allowedHeaders: headers,
    maxAge: PREFLIGHT_MAX_AGE_S,
  });
}

/**
 * JSON bodies, where an empty body is no body: clients that always send Content-Type:
 * application/json send none on DELETE or on PropelAuth's logout. Anything else goes to Fastify's
 * own parser with the app's poisoning settings (a 400 for bad JSON and prototype keys).
 */
export function acceptEmptyJsonBodies(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? "error",
    app.initialConfig.onConstructorPoisoning ?? "error",
  );
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    if (body === "") return done(null, undefined);
    parseJson(req, body as string, done);
  });
}

/**
 * HTML form posts. One string per field (the last, when a field repeats), as URLSearchParams reads
 * them, so a handler never meets an array where a form sends text.
 */
export function acceptForms(app: FastifyInstance) {
  app.register(formbody, { parser: (body) => Object.fromEntries(new URLSearchParams(body)) });
}
