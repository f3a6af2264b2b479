// Refine auth provider on the PropelAuth-compatible identity service. Signing in happens on the
// hosted login page, a different origin, so redirects are full page loads done here rather than
// Refine's router redirects (the router can only move within the console).
import type { IAuthClient } from "@propelauth/javascript";
import type { AuthProvider, CheckResponse } from "@refinedev/core";
import { toLatin1Url } from "../lib/return-target";
import type { CurrentUserSource } from "./current-user";
import { toAuthRefreshError } from "./identity-client";

export type AuthClient = Pick<
  IAuthClient,
  | "getAuthenticationInfoOrNull"
  | "logout"
  | "getLoginPageUrl"
  | "getAccountPageUrl"
  | "addLoggedInChangeObserver"
  | "removeLoggedInChangeObserver"
> & {
  /** The identity client keeps a failed start-up round as its answer until told to ask again. */
  retryFailedStart?: () => void;
};

/** Leaving the console; injected so tests can observe it. */
export type PageNavigator = {
  assign: (url: string) => void;
  currentUrl: () => string;
};

export const browserNavigator: PageNavigator = {
  assign: (url) => window.location.assign(url),
  currentUrl: () => window.location.href,
};

/** check() failed to reach the identity service (after the client's 3 retries): show the error
 * (spec §8 wording) with a way to retry; do not bounce to login. */
export const AUTH_UNAVAILABLE = "AuthUnavailable";

export type ConsoleAuthProvider = AuthProvider & {
  /** Sends the browser to the hosted login page once the session ends in any tab. */
  watchSession: () => () => void;
  accountPageUrl: () => string;
  /** The sign-in service failed: the next check asks it again instead of reading that failure. */
  retrySession: () => void;
};

type Options = { client: AuthClient; currentUser: CurrentUserSource; navigator?: PageNavigator };

export function createAuthProvider({
  client,
  currentUser,
  navigator = browserNavigator,
}: Options): ConsoleAuthProvider {
  // Once the page is being replaced, later checks and observers must not start a second redirect
  // (a logout's own redirect_to would race a fresh login redirect).
  let leaving = false;
  const leave = (url: string) => {
    if (leaving) return;
    leaving = true;
    navigator.assign(url);
  };
  const loginUrl = () =>
    client.getLoginPageUrl({ postLoginRedirectUrl: toLatin1Url(navigator.currentUrl()) });

  return {
    login: async () => {
      leave(loginUrl());
      return { success: true };
    },

    check: async (): Promise<CheckResponse> => {
      let info: Awaited<ReturnType<AuthClient["getAuthenticationInfoOrNull"]>>;
      try {
        info = await client.getAuthenticationInfoOrNull();
      } catch (error) {
        const { message } = toAuthRefreshError(error);
        return { authenticated: false, error: { name: AUTH_UNAVAILABLE, message } };
      }
      if (info) return { authenticated: true };
      currentUser.clear();
      leave(loginUrl());
      return { authenticated: false, error: { name: "Unauthenticated", message: "Redirecting to sign in" } };
    },

    logout: async () => {
      currentUser.clear();
      const wasLeaving = leaving;
      leaving = true;
      try {
        // With `true` the client follows the service's redirect_to: the hosted login page.
        await client.logout(true);
        return { success: true };
      } catch (error) {
        leaving = wasLeaving;
        const message = error instanceof Error ? error.message : "Please try again.";
        return { success: false, error: { name: "Logout failed", message } };
      }
    },

    // A rejected access token means the session is no longer valid: end it for real, otherwise
    // the hosted login would send the user straight back with the same session.
    onError: async (error) => {
      const status = (error as { statusCode?: number } | null)?.statusCode;
      if (status === 401) return { logout: true };
      return {};
    },

    getIdentity: () => currentUser.get(),

    watchSession: () => {
      // The client also reports "logged out" when a refresh fails (500, network): ask it again,
      // which joins the refresh still under way, and leave only when it says signed out (401).
      const observer = (isLoggedIn: boolean) => {
        if (isLoggedIn || leaving) return;
        client.getAuthenticationInfoOrNull().then(
          (info) => {
            if (info) return;
            currentUser.clear();
            leave(loginUrl());
          },
          () => {},
        );
      };
      client.addLoggedInChangeObserver(observer);
      return () => client.removeLoggedInChangeObserver(observer);
    },

    retrySession: () => client.retryFailedStart?.(),

    accountPageUrl: () =>
      client.getAccountPageUrl({ redirectBackToUrl: toLatin1Url(navigator.currentUrl()) }),
  };
}
