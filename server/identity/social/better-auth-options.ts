import type { SocialProviders } from "better-auth/social-providers";
import type { SocialProvidersConfig } from "./providers";

/** better-auth's `socialProviders` option for the providers configured in the environment. */
export function betterAuthSocialProviders(config: SocialProvidersConfig): SocialProviders {
  const out: SocialProviders = {};
  for (const [id, s] of Object.entries(config)) {
    if (!s) continue;
    const base = { clientId: s.clientId, clientSecret: s.clientSecret };
    switch (id) {
      case "microsoft":
        out.microsoft = { ...base, tenantId: s.tenantId ?? "common" };
        break;
      case "gitlab":
        out.gitlab = { ...base, ...(s.issuer ? { issuer: s.issuer } : {}) };
        break;
      case "salesforce":
        out.salesforce = {
          ...base,
          environment: s.environment ?? "production",
          ...(s.loginUrl ? { loginUrl: s.loginUrl } : {}),
        };
        break;
      case "apple":
        out.apple = {
          ...base,
          ...(s.appBundleIdentifier ? { appBundleIdentifier: s.appBundleIdentifier } : {}),
        };
        break;
      default:
        (out as Record<string, typeof base>)[id] = base;
    }
  }
  return out;
}
