import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { accountPages } from "./account/page-routes";
import type { IdentityContext } from "./context";
import { signInPages } from "./login/page-routes";
import { signInStepPages } from "./login/step-page-routes";
import { unlockPages } from "./login/unlock-routes";
import { orgPages } from "./orgs/page-routes";
import { orgSidePages } from "./orgs/side-page-routes";
import { samlLinkRoutes } from "./saml/link-routes";
import { samlSetupPages } from "./saml/setup-routes";
import { samlSignInRoutes } from "./saml/signin-routes";
import { provideSocialButtons } from "./social/buttons";
import { enabledProviders } from "./social/providers";
import { socialRoutes } from "./social/routes";
import { identityValidator } from "./validation";

/**
 * The identity service's hosted pages, one plugin per group: sign-in and its steps, the account
 * page, organizations, SAML, social sign-in and unlock. Their zod schemas (hosted-pages/schemas.ts)
 * are checked by the same validator as the JSON calls: a repeated or malformed parameter is
 * 400 invalid_request_fields before any handler runs. They stay out of the OpenAPI document,
 * which describes the JSON calls only.
 */
export const identityPages: FastifyPluginAsyncZod<{ ctx: IdentityContext }> = async (pages, { ctx }) => {
  pages.setValidatorCompiler(identityValidator("query"));
  // The sign-in and sign-up pages list the configured social providers.
  provideSocialButtons(pages, enabledProviders(ctx.socialProviders));
  for (const group of [
    signInPages,
    signInStepPages,
    accountPages,
    orgPages,
    orgSidePages,
    samlSetupPages,
    samlSignInRoutes,
    samlLinkRoutes,
    unlockPages,
    socialRoutes,
  ])
    await pages.register(group, { ctx });
};
