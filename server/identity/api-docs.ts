import fastifySwagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import {
  createJsonSchemaTransformObject,
  type FastifyPluginAsyncZod,
  jsonSchemaTransform,
} from "fastify-type-provider-zod";
import { COOKIE_PREFIX } from "./better-auth/auth";
import { FE_PREFIX } from "./fe/plumbing";

/** How each group of calls is authenticated, as the document states it. */
function securityOf(url: string) {
  if (url.startsWith(FE_PREFIX)) return [{ sessionCookie: [], csrfHeader: [] }];
  if (url.startsWith("/api/backend/") || url === "/api/v1/token_verification_metadata")
    return [{ backendApiKey: [] }];
  if (url.startsWith("/api/v1/")) return [{ sessionCookie: [] }];
  return [];
}

const operationId = (method: string, url: string) =>
  `${method.toLowerCase()}${url.replace(/[^a-zA-Z0-9]+/g, "_").replace(/_$/, "")}`;

/**
 * The OpenAPI 3.1 document of the identity service's JSON calls (/api/fe/v3, /api/v1,
 * /api/backend), built by @fastify/swagger from the routes' own zod schemas as /v1's is. Register
 * on the scope that holds those routes, before them; the hosted pages (HTML forms) live outside it.
 */
export async function registerIdentityApiDocs(api: FastifyInstance, serverUrl: string) {
  await api.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Eval Console identity service",
        version: "1",
        description:
          "The PropelAuth-compatible calls of the identity service. Errors are JSON " +
          '{"error_code", "user_facing_error"}; a refused input is 400 invalid_request_fields with ' +
          "field_errors (and user_facing_errors) naming each field. /api/fe/v3 calls need the session " +
          "cookie and an X-CSRF-Token header; backend calls the backend API key as a bearer token.",
      },
      servers: [{ url: serverUrl }],
      components: {
        securitySchemes: {
          // Named with the __Secure- prefix when the service is served over HTTPS.
          sessionCookie: { type: "apiKey", in: "cookie", name: `${COOKIE_PREFIX}.session_token` },
          csrfHeader: { type: "apiKey", in: "header", name: "X-CSRF-Token" },
          backendApiKey: { type: "http", scheme: "bearer" },
        },
      },
    },
    transform(input) {
      const out = jsonSchemaTransform(input);
      const method = String(input.route.method);
      return {
        url: out.url,
        schema: { ...out.schema, operationId: operationId(method, out.url), security: securityOf(out.url) },
      };
    },
    transformObject: createJsonSchemaTransformObject({}),
  });
}

/** GET /api/openapi.json: the identity service's document, beside its routes. */
export const identityOpenApiRoute: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/api/openapi.json",
    { schema: { hide: true } },
    async () => app.swagger() as unknown as Record<string, unknown>,
  );
};
