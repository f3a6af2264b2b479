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

/** A 400 whose message names the first offending field, e.g. "name: name is required.". */
export function invalid(error: z.ZodError, where: string): ApiError {
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
  const message =
    issue.code === "invalid_type" && issue.input === undefined ? `${field} is required.` : issue.message;
  return new ApiError(400, "invalid_request", `${where} ${field}: ${message}`);
}

function parse<S extends AnyZod>(schema: S | undefined, value: unknown, where: string): z.output<S> {
  if (!schema) return undefined as z.output<S>;
  const r = schema.safeParse(value);
  if (!r.success) throw invalid(r.error, where);
  return r.data;
}

const isEmptyBody = (b: unknown) =>
  b === undefined ||
  b === null ||
  b === "" ||
  (typeof b === "object" && !Array.isArray(b) && Object.keys(b).length === 0);

const toFastifyPath = (p: string) => p.replace(/\{(\w+)\}/g, ":$1");

/**
 * Registers routes on the app and remembers them for the OpenAPI document: authenticate first
 * (401), then validate params, query and body with their zod schemas (400 JSON, before any write).
 */
export function createRouter(app: FastifyInstance, authenticate: Authenticate) {
  const routes: AnyRouteSpec[] = [];

  function route<P extends AnyZod, Q extends AnyZod, B extends AnyZod>(spec: RouteSpec<P, Q, B>) {
    routes.push(spec);
    for (const path of [spec.path, ...(spec.aliases ?? [])]) {
      app.route({
        method: spec.method,
        url: toFastifyPath(path),
        ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
        handler: async (req, reply) => {
          reply.header("cache-control", "no-store");
          const principal =
            spec.auth === "none"
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

  return { route, routes };
}

export type Router = ReturnType<typeof createRouter>;
