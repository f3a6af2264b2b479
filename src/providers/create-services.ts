// Assembles the services from the config and an identity client. Tests pass a fake client and
// navigator; the browser build passes the real PropelAuth client.
import type { ConsoleConfig } from "../lib/console-config";
import { type AuthClient, browserNavigator, createAuthProvider, type PageNavigator } from "./auth-provider";
import { createCurrentUserSource } from "./current-user";
import { createApiFetch } from "./http";
import type { ConsoleServices } from "./services";

type Options = {
  config: ConsoleConfig;
  client: AuthClient;
  navigator?: PageNavigator;
  fetchImpl?: typeof fetch;
};

export function createServices({
  config,
  client,
  navigator = browserNavigator,
  fetchImpl,
}: Options): ConsoleServices {
  const readAuthInfo = () => client.getAuthenticationInfoOrNull();
  const apiFetch = createApiFetch({
    apiUrl: config.apiUrl,
    // The client returns its cached token and refreshes it shortly before expiry; forced after the
    // API refused a revoked token.
    getAccessToken: async (opts) =>
      (await client.getAuthenticationInfoOrNull(opts?.forceRefresh === true))?.accessToken ?? null,
    fetchImpl,
  });
  const currentUser = createCurrentUserSource(apiFetch, readAuthInfo);
  const authProvider = createAuthProvider({ client, currentUser, navigator });
  return { config, authProvider, currentUser, apiFetch, navigator };
}
