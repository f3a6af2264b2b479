// The social sign-in providers this installation can offer, and their settings from the
// environment. Each one is enabled only when both its client id and secret are set.
import { ConfigError } from "../../platform/config";

/** Providers we sign in with through better-auth, in the order their buttons appear. */
export const SOCIAL_PROVIDERS = [
  { id: "google", label: "Google", env: "GOOGLE" },
  { id: "github", label: "GitHub", env: "GITHUB" },
  { id: "microsoft", label: "Microsoft", env: "MICROSOFT" },
  { id: "apple", label: "Apple", env: "APPLE" },
  { id: "slack", label: "Slack", env: "SLACK" },
  { id: "linkedin", label: "LinkedIn", env: "LINKEDIN" },
  { id: "gitlab", label: "GitLab", env: "GITLAB" },
  { id: "atlassian", label: "Atlassian", env: "ATLASSIAN" },
  { id: "salesforce", label: "Salesforce", env: "SALESFORCE" },
  { id: "discord", label: "Discord", env: "DISCORD" },
  { id: "facebook", label: "Facebook", env: "FACEBOOK" },
  { id: "twitter", label: "X (Twitter)", env: "TWITTER" },
] as const;

export type SocialProviderId = (typeof SOCIAL_PROVIDERS)[number]["id"];

/**
 * Social paths the PropelAuth client knows but better-auth has no provider for: they answer with
 * the same "not set up" page as an unconfigured provider rather than a bare 404.
 */
const UNSUPPORTED_CLIENT_PROVIDERS: Record<string, string> = {
  outreach: "Outreach",
  quickbooks: "QuickBooks",
  xero: "Xero",
  salesloft: "Salesloft",
};

export type SocialProviderSettings = {
  clientId: string;
  clientSecret: string;
  /** Microsoft: the Entra ID tenant ("common", "organizations", "consumers" or a tenant id). */
  tenantId?: string;
  /** GitLab: the address of a self-managed instance. */
  issuer?: string;
  /** Salesforce: production or sandbox login, or a My Domain host. */
  environment?: "production" | "sandbox";
  loginUrl?: string;
  /** Apple: the iOS bundle id, when native apps sign in with the same Services ID. */
  appBundleIdentifier?: string;
};

export type SocialProvidersConfig = Partial<Record<SocialProviderId, SocialProviderSettings>>;

/** Extra variables of a provider, beside <PREFIX>_CLIENT_ID and <PREFIX>_CLIENT_SECRET. */
const EXTRA: Partial<Record<SocialProviderId, Record<string, keyof SocialProviderSettings>>> = {
  microsoft: { MICROSOFT_TENANT_ID: "tenantId" },
  gitlab: { GITLAB_ISSUER: "issuer" },
  salesforce: { SALESFORCE_ENVIRONMENT: "environment", SALESFORCE_LOGIN_URL: "loginUrl" },
  apple: { APPLE_APP_BUNDLE_ID: "appBundleIdentifier" },
};

/** Every variable read here, for documentation and tests. */
export const SOCIAL_ENV_VARS = SOCIAL_PROVIDERS.flatMap((p) => [
  `${p.env}_CLIENT_ID`,
  `${p.env}_CLIENT_SECRET`,
  ...Object.keys(EXTRA[p.id] ?? {}),
]);

function checkExtra(name: string, value: string): string | null {
  if (name === "GITLAB_ISSUER" && !(URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)))
    return `${name} must be an absolute http(s) URL, e.g. https://gitlab.example.com (got "${value}")`;
  if (name === "SALESFORCE_ENVIRONMENT" && value !== "production" && value !== "sandbox")
    return `${name} must be production or sandbox (got "${value}")`;
  if (name === "SALESFORCE_LOGIN_URL" && !/^[A-Za-z0-9.-]+$/.test(value))
    return `${name} must be a host name such as mycompany.my.salesforce.com (got "${value}")`;
  return null;
}

/**
 * Reads the enabled providers from the environment (empty values already removed); an id without
 * a secret (or the reverse) is a problem. Throws ConfigError with one line naming every problem.
 */
export function loadSocialProviders(
  env: Readonly<Record<string, string | undefined>>,
): SocialProvidersConfig {
  const providers: SocialProvidersConfig = {};
  const errors: string[] = [];
  for (const p of SOCIAL_PROVIDERS) {
    const idVar = `${p.env}_CLIENT_ID`;
    const secretVar = `${p.env}_CLIENT_SECRET`;
    const clientId = env[idVar]?.trim();
    const clientSecret = env[secretVar]?.trim();
    const extras = Object.entries(EXTRA[p.id] ?? {}).filter(([name]) => env[name]?.trim());
    if (!clientId && !clientSecret) {
      for (const [name] of extras) errors.push(`${name} is set but ${idVar} and ${secretVar} are not`);
      continue;
    }
    if (!clientId) {
      errors.push(`${secretVar} is set but ${idVar} is not (${p.label} sign-in needs both)`);
      continue;
    }
    if (!clientSecret) {
      errors.push(`${idVar} is set but ${secretVar} is not (${p.label} sign-in needs both)`);
      continue;
    }
    const settings: SocialProviderSettings = { clientId, clientSecret };
    let ok = true;
    for (const [name, key] of extras) {
      const value = (env[name] as string).trim();
      const problem = checkExtra(name, value);
      if (problem) {
        errors.push(problem);
        ok = false;
      } else (settings as Record<string, string>)[key] = value;
    }
    if (ok) providers[p.id] = settings;
  }
  if (errors.length) throw new ConfigError(`Configuration error: ${errors.join("; ")}`);
  return providers;
}

/** The enabled providers with their labels, in button order. */
export function enabledProviders(config: SocialProvidersConfig) {
  return SOCIAL_PROVIDERS.filter((p) => config[p.id]).map((p) => ({ id: p.id, label: p.label }));
}

export function providerLabel(id: string): string | undefined {
  return (
    SOCIAL_PROVIDERS.find((p) => p.id === id)?.label ??
    (Object.hasOwn(UNSUPPORTED_CLIENT_PROVIDERS, id) ? UNSUPPORTED_CLIENT_PROVIDERS[id] : undefined)
  );
}
