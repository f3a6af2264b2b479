import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { ApiError } from "../platform/errors";
import type { Authenticate, Principal } from "./principal";

/** How a route lets callers in: bearer token only, or bearer token or x-api-key. */
export type RouteAuth = "bearer" | "bearer_or_api_key" | "none";

type AnyZod = z.ZodType;

export type RouteSpec<P extends AnyZod, Q extends AnyZod, B extends AnyZod> = {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** OpenAPI-style path, e.g. /v1/workspaces/{workspace_uuid}. */
  path: string;
  /** Extra paths served by the same handler but not documented (e.g. without a trailing slash). */
  aliases?: string[];
  tag: string;
  summary: string;
  description?: string;
  auth: RouteAuth;
  params?: P;
  query?: Q;
  body?: B;
  /** Largest request body in bytes, when a route takes more than the app's default. */
  bodyLimit?: number;
  /**
   * Authenticates the call in Fastify's onRequest hook, before the body is read, instead of the
   * router's own authentication (`principal` is then null: the route keeps what it learnt, e.g.
   * per request). `auth` still describes the route in the OpenAPI document.
   */
  onRequest?: (req: FastifyRequest) => Promise<void>;
  /**
   * Registers the route in its own plugin scope after calling this on it, e.g. to accept a content
   * type on this route only.
   */
  scope?: (instance: FastifyInstance) => void;
  /** Body is optional (e.g. the same field may come from the query). */
  bodyOptional?: boolean;
  /** Status → description and schema (no schema: empty body). */
  responses: Record<number, { description: string; schema?: AnyZod }>;
  handler(ctx: {
    req: FastifyRequest;
    reply: FastifyReply;
    principal: Principal;
    params: z.output<P>;
    query: z.output<Q>;
    body: z.output<B> | undefined;
  }): Promise<unknown>;
};

// biome-ignore lint/suspicious/noExplicitAny: the registry holds routes of every shape.
export type AnyRouteSpec = RouteSpec<any, any, any>;

/** The value at `path` inside `input`, or undefined when any step is missing. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

const typeName = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`);

/**
 * A 400 whose message names the first offending field, e.g. "body name: name is required.".
 * zod 4 leaves the offending value out of its issues, so `input` (what was validated) tells a
 * missing field apart from one of the wrong type.
 */
export function invalid(error: z.ZodError, where: string, input?: unknown): ApiError {
  const issue = error.issues[0];
  if (!issue) return new ApiError(400, "invalid_request", `The ${where} is not valid.`);
  if (issue.code === "unrecognized_keys")
    return new ApiError(400, "invalid_request", `Unknown ${where} field(s): ${issue.keys.join(", ")}.`);
  const field = issue.path.join(".");
  if (!field)
    return new ApiError(
      400,
      "invalid_request",
      issue.code === "invalid_type" ? `The ${where} must be a JSON object.` : issue.message,
    );
  let message = issue.message;
  if (issue.code === "invalid_type") {
    const value = valueAt(input, issue.path);
    message =
      value === undefined
        ? `${field} is required.`
        : // A schema's own message (e.g. "name must be a string.") already says what is wrong.
          /^Invalid input/.test(issue.message)
          ? `${field} must be ${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}, not ${typeName(value)}.`
          : issue.message;
  }
  return new ApiError(400, "invalid_request", `${where} ${field}: ${message}`);
}

function parse<S extends AnyZod>(schema: S | undefined, value: unknown, where: string): z.output<S> {
  if (!schema) return undefined as z.output<S>;
  const r = schema.safeParse(value);
  if (!r.success) throw invalid(r.error, where, value);
  return r.data;
}

const isEmptyBody = (b: unknown) =>
  b === undefined ||
  b === null ||
  b === "" ||
  (typeof b === "object" && !Array.isArray(b) && Object.keys(b).length === 0);

const toFastifyPath = (p: string) => p.replace(/\{(\w+)\}/g, ":$1");

const tables = new WeakMap<FastifyInstance, readonly AnyRouteSpec[]>();

/** The routes registered through createRouter on this app: the OpenAPI registry, for tests and tools. */
export function routeTable(app: FastifyInstance): readonly AnyRouteSpec[] {
  return tables.get(app) ?? [];
}

/**
 * Registers routes on the app and remembers them for the OpenAPI document: authenticate first
 * (401), then validate params, query and body with their zod schemas (400 JSON, before any write).
 */
export function createRouter(app: FastifyInstance, authenticate: Authenticate) {
  const routes: AnyRouteSpec[] = [];
  tables.set(app, routes);

  function route<P extends AnyZod, Q extends AnyZod, B extends AnyZod>(spec: RouteSpec<P, Q, B>) {
    routes.push(spec);
    const on = (instance: FastifyInstance) => {
      spec.scope?.(instance);
      for (const path of [spec.path, ...(spec.aliases ?? [])]) add(instance, path);
    };
    if (spec.scope) app.register(async (instance) => on(instance));
    else on(app);

    function add(instance: FastifyInstance, path: string) {
      const early = spec.onRequest;
      instance.route({
        method: spec.method,
        url: toFastifyPath(path),
        ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
        ...(early
          ? {
              onRequest: async (req: FastifyRequest, reply: FastifyReply) => {
                reply.header("cache-control", "no-store");
                await early(req);
              },
            }
          : {}),
        handler: async (req, reply) => {
          reply.header("cache-control", "no-store");
          const principal =
            spec.auth === "none" || early
              ? (null as unknown as Principal)
              : await authenticate(req, { apiKey: spec.auth === "bearer_or_api_key" });
          const params = parse(spec.params, req.params ?? {}, "path parameter");
          const query = parse(spec.query, req.query ?? {}, "query parameter");
          let body: z.output<B> | undefined;
          if (spec.body && !(spec.bodyOptional && req.body === undefined))
            body = parse(spec.body, req.body, "body");
          else if (!spec.body && !isEmptyBody(req.body))
            throw new ApiError(400, "invalid_request", "This call takes no request body.");
          const result = await spec.handler({ req, reply, principal, params, query, body });
          if (result === undefined) return reply.send();
          return result;
        },
      });
    }
  }

  /** The router's own authentication, for routes that authenticate themselves in onRequest. */
  return { route, routes, authenticate };
}

export type Router = ReturnType<typeof createRouter>;
