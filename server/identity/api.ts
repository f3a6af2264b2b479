import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { accountRoutes } from "./account/routes";
import { identityOpenApiRoute, registerIdentityApiDocs } from "./api-docs";
import { apiKeyRoutes } from "./api-keys/routes";
import { backendRoutes } from "./backend-api/routes";
import type { IdentityContext } from "./context";
import { FE_PREFIX, requireCsrfHeader } from "./fe/plumbing";
import { impersonationRoutes } from "./impersonation/routes";
import { loginRoutes } from "./login/routes";
import { orgRoutes } from "./orgs/routes";
import { sessionRoutes } from "./session/routes";
import { identityValidator } from "./validation";

/**
 * The identity service's JSON calls, one plugin per group: the identity client API under
 * /api/fe/v3 (X-CSRF-Token required), the session calls under /api/v1, the backend calls, and
 * their OpenAPI document at /api/openapi.json. Their zod schemas are checked by one validator,
 * whose refusals the service's error handler renders as PropelAuth's invalid_request_fields.
 */
export const identityApi: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (api, { ctx }) => {
  await registerIdentityApiDocs(api, ctx.config.authPublicUrl);
  api.setValidatorCompiler(identityValidator());
  await api.register(
    async (fe) => {
      requireCsrfHeader(fe);
      await fe.register(loginRoutes, { ctx });
      await fe.register(accountRoutes, { ctx });
      await fe.register(orgRoutes, { ctx });
      await fe.register(apiKeyRoutes, { ctx });
      await fe.register(impersonationRoutes, { ctx });
    },
    { prefix: FE_PREFIX },
  );
  await api.register(sessionRoutes, { ctx, prefix: "/api/v1" });
  await api.register(backendRoutes, { ctx });
  await api.register(identityOpenApiRoute);
};
