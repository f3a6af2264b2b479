import cors from "@fastify/cors";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from "fastify";

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

/** A Fastify app with our defaults: shared JSON logger, request ids, bounded bodies. */
export function createHttpApp(
  logger: FastifyBaseLogger,
  opts: { errorShape?: ErrorShape } = {},
): FastifyInstance {
  const shape = opts.errorShape ?? productErrorShape;
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: 1024 * 1024,
    trustProxy: true,
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
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook("onRoute", (r) => {
    for (const method of Array.isArray(r.method) ? r.method : [r.method])
      if (method !== "HEAD" && method !== "OPTIONS") routes.push({ method, url: r.url });
  });
  return app;
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
      done(null, JSON.parse(body as string));
    } catch {
      done(
        Object.assign(new SyntaxError("The request body is not valid JSON."), { statusCode: 400 }),
        undefined,
      );
    }
  });
}
