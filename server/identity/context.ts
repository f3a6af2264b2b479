import type { Config } from "../platform/config";
import type { Db } from "../platform/database";
import type { RateLimits } from "../platform/rate-limits";
import type { ApiKeyValidation } from "./api-keys/validation-cache";
import type { Auth } from "./better-auth/auth";
import type { Directory } from "./directory";
import type { Mailer } from "./email/mailer";
import type { TokenIssuer } from "./session/access-tokens";
import type { SocialProvidersConfig } from "./social/providers";

/** What the identity routes share; built once by createIdentityService. */
export type IdentityContext = {
  config: Config;
  db: Db;
  auth: Auth;
  directory: Directory;
  tokens: TokenIssuer;
  mailer: Mailer;
  limiter: RateLimits;
  /** API key validation, cached per process (one instance: deletions and last-use batches meet here). */
  apiKeys: ApiKeyValidation;
  /** Server-to-server secret of the backend API (/api/backend/v1, token_verification_metadata). */
  backendApiKey: string;
  /** Social sign-in providers whose client id and secret are both set (<PROVIDER>_CLIENT_ID/_SECRET). */
  socialProviders: SocialProvidersConfig;
};
