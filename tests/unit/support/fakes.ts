// Test doubles at the client/network boundary, shared by the console tests.
import { type Mock, vi } from "vitest";
import type { AuthClient, PageNavigator } from "../../../src/providers/auth-provider";
import type { CurrentUser } from "../../../src/providers/current-user-types";

export const AUTH_URL = "http://auth.test";
export const API_URL = "http://api.test";

/** PropelAuth auth response body (snake_case), as GET /api/v1/refresh_token returns it. */
export function authResponseBody(overrides: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    access_token: "token-123",
    expires_at_seconds: now + 3600,
    user: {
      user_id: "u1",
      email: "member@acme.test",
      email_confirmed: true,
      has_password: true,
      locked: false,
      enabled: true,
      mfa_enabled: false,
      can_create_orgs: false,
      created_at: now,
      last_active_at: now,
    },
    org_id_to_org_member_info: {},
    ...overrides,
  };
}

export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

export function fakeNavigator(currentUrl = "http://console.test/account/settings") {
  return { assign: vi.fn<(url: string) => void>(), currentUrl: () => currentUrl } satisfies PageNavigator;
}

type FakeAuthClient = AuthClient & {
  observers: ((loggedIn: boolean) => void)[];
  logout: Mock<(redirect: boolean) => Promise<void>>;
};

/** The identity client as the console uses it; URLs are built like the real one (rt = btoa). */
export function fakeAuthClient(options: { loggedIn?: boolean; impersonator?: string } = {}): FakeAuthClient {
  const observers: ((loggedIn: boolean) => void)[] = [];
  const info =
    options.loggedIn === false
      ? null
      : {
          accessToken: "token-123",
          expiresAtSeconds: Math.floor(Date.now() / 1000) + 3600,
          user: { userId: "u1", email: "member@acme.test" },
          impersonatorUserId: options.impersonator,
        };
  const page = (path: string, url?: string) =>
    `${AUTH_URL}/${path}${url ? `?${new URLSearchParams({ rt: btoa(url) })}` : ""}`;
  return {
    observers,
    getAuthenticationInfoOrNull: vi.fn(async () => info as never),
    logout: vi.fn(async (_redirect: boolean) => {}),
    getLoginPageUrl: (o) => page("login", o?.postLoginRedirectUrl),
    getAccountPageUrl: (o) => page("account", o?.redirectBackToUrl),
    addLoggedInChangeObserver: (fn) => {
      observers.push(fn);
    },
    removeLoggedInChangeObserver: (fn) => {
      observers.splice(observers.indexOf(fn), 1);
    },
  };
}

export function accountsMe(overrides: Partial<CurrentUser> = {}): CurrentUser {
  return {
    email: "member@acme.test",
    is_admin: false,
    is_impersonating: false,
    is_operator: false,
    organization: { name: "Acme AI", org_uuid: "org-1" },
    workspace: { workspace_uuid: "ws-1", name: "Research" },
    org_admin_emails: ["admin@acme.test"],
    ...overrides,
  };
}
