import cors from "@fastify/cors";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";

/** One registered route: what tests and tools enumerate (e.g. the tenant isolation matrix). */
export type RegisteredRoute = { method: string; url: string };

const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route registered on an app made by createHttpApp, HEAD and OPTIONS left out. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registered.get(app) ?? [];
}

/** A Fastify app with our defaults: shared JSON logger, request ids, bounded bodies. */
export function createHttpApp(logger: FastifyBaseLogger): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: 1024 * 1024,
    trustProxy: true,
    requestIdHeader: "x-request-id",
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
