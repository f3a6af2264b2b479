import type { FastifyInstance, FastifyRequest } from "fastify";
import { ApiError } from "../platform/errors";
import { runAsTenant } from "../platform/tenant-scope";
import { requireAdmin } from "./access";
import type { Authenticate, OrgMemberClaim, Principal } from "./principal";
import { serializerCompiler, validatorCompiler } from "./validation";

/** Which credentials a route takes: a bearer token only, a bearer token or x-api-key, or none. */
export type RouteAuth = "bearer" | "bearer_or_api_key" | "none";

/** What every product API route declares in its `config`. */
export type ApiRouteConfig = {
  auth: RouteAuth;
  /**
   * The route's plugin authenticates in an onRequest hook of its own (provider operators, usage
   * senders); `auth` then only describes it in the OpenAPI document.
   */
  authenticatesItself?: true;
  /** Organization administrators only; the action the 403 names, e.g. "create workspaces". */
  admin?: string;
};

declare module "fastify" {
  interface FastifyContextConfig extends Partial<ApiRouteConfig> {}
  interface FastifyRequest {
    /** Who calls: set in onRequest on every route whose `config.auth` takes a credential. */
    principal: Principal;
  }
}

const isEmptyBody = (b: unknown) =>
  b === undefined ||
  b === null ||
  b === "" ||
  (typeof b === "object" && !Array.isArray(b) && Object.keys(b).length === 0);

/**
 * The hooks every /v1 route shares, installed once on the scope that holds the route plugins:
 * zod validation of params, query and body and of every response (see validation.ts and
 * errors.ts), then per request: no caching; authentication (401) before the body is read; a body
 * only where the route takes one; the administrator check (403) once the input is valid.
 */
export function installApiRouteHooks(app: FastifyInstance, authenticate: Authenticate) {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest("principal", null as unknown as Principal);

  app.addHook("onRoute", (route) => {
    if (!route.config?.auth) throw new Error(`${route.method} ${route.url} declares no config.auth`);
    // The handler works for the caller's organization: shared queues take turns by it.
    const handler = route.handler;
    route.handler = function tenantHandler(req, reply) {
      const tenant = req.principal?.org?.org_id ?? (req.principal ? `user:${req.principal.userId}` : "");
      return runAsTenant(tenant, () => handler.call(this, req, reply));
    };
  });

  app.addHook("onRequest", async (req, reply) => {
    reply.header("cache-control", "no-store");
    const { auth, authenticatesItself } = req.routeOptions.config;
    if (auth === "none" || authenticatesItself) return;
    req.principal = await authenticate(req, { apiKey: auth === "bearer_or_api_key" });
  });

  app.addHook("preValidation", async (req) => {
    if (!req.routeOptions.schema?.body && !isEmptyBody(req.body))
      throw new ApiError("invalid_request", "This call takes no request body.");
  });

  app.addHook("preHandler", async (req) => {
    const { admin } = req.routeOptions.config;
    if (admin) requireAdmin(req.principal, admin);
  });
}

/** The caller's organization on a route whose preHandler required an administrator. */
export function adminOrg(req: FastifyRequest): OrgMemberClaim {
  const org = req.principal.org;
  if (!org) throw new Error("unreachable: the route's config.admin requires an organization");
  return org;
}
