// Assembles the services from the config and an identity client. Tests pass a fake client and
// navigator; the browser build passes the real PropelAuth client.
import type { ConsoleConfig } from "../lib/console-config";
import { type AuthClient, browserNavigator, createAuthProvider, type PageNavigator } from "./auth-provider";
import { type CurrentUserSource, createCurrentUserSource } from "./current-user";
import type { CurrentUser } from "./current-user-types";
import { createApiFetch } from "./http";
import { type Prefetch, withPrefetch } from "./prefetch";
import type { ConsoleServices } from "./services";

type Options = {
  config: ConsoleConfig;
  client: AuthClient;
  navigator?: PageNavigator;
  fetchImpl?: typeof fetch;
  /**
   * Called once, when the current user is first known: the landing page's reads can start then
   * (prefetch), before the shell and the page have rendered.
   */
  onUserKnown?: (user: CurrentUser, prefetch: Prefetch) => void;
};

export function createServices({
  config,
  client,
  navigator = browserNavigator,
  fetchImpl,
  onUserKnown,
}: Options): ConsoleServices {
  const readAuthInfo = () => client.getAuthenticationInfoOrNull();
  const { apiFetch, prefetch } = withPrefetch(
    createApiFetch({
      apiUrl: config.apiUrl,
      // The client returns its cached token and refreshes it shortly before expiry; forced after the
      // API refused a revoked token.
      getAccessToken: async (opts) =>
        (await client.getAuthenticationInfoOrNull(opts?.forceRefresh === true))?.accessToken ?? null,
      fetchImpl,
    }),
  );
  const currentUser = onceKnown(createCurrentUserSource(apiFetch, readAuthInfo), (user) =>
    onUserKnown?.(user, prefetch),
  );
  const authProvider = createAuthProvider({ client, currentUser, navigator });
  return { config, authProvider, currentUser, apiFetch, navigator };
}

/** The source, calling `known` with the first user it loads (once per page load). */
function onceKnown(source: CurrentUserSource, known: (user: CurrentUser) => void): CurrentUserSource {
  let told = false;
  return {
    ...source,
    get: () =>
      source.get().then((user) => {
        if (!told) {
          told = true;
          known(user);
        }
        return user;
      }),
  };
}
