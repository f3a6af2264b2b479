import { createClient } from "@propelauth/javascript";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AUTH_UNAVAILABLE, createAuthProvider } from "../../src/providers/auth-provider";
import type { CurrentUserSource } from "../../src/providers/current-user";
import { AuthRefreshError, createIdentityClient } from "../../src/providers/identity-client";
import {
  AUTH_URL,
  accountsMe,
  authResponseBody,
  fakeAuthClient,
  fakeNavigator,
  jsonResponse,
} from "./support/fakes";

const CURRENT_URL = "http://console.test/workspace/ws-1?tab=members";

function userSource() {
  return {
    get: vi.fn(async () => accountsMe()),
    clear: vi.fn<() => void>(),
  } satisfies CurrentUserSource;
}

describe("auth provider on the real identity client (network mocked)", () => {
  const fetchMock = vi.fn<typeof fetch>();
  let client: ReturnType<typeof createClient>;

  beforeEach(() => {
    fetchMock.mockReset();
    vi.stubGlobal("fetch", fetchMock);
    client = createClient({ authUrl: AUTH_URL, enableBackgroundTokenRefresh: false });
  });
  afterEach(() => {
    client.destroy();
    vi.unstubAllGlobals();
  });

  it("sends a signed-out visitor to the hosted login page with rt = btoa(current URL), once", async () => {
    fetchMock.mockResolvedValue(new Response("", { status: 401 }));
    const navigator = fakeNavigator(CURRENT_URL);
    const provider = createAuthProvider({ client, currentUser: userSource(), navigator });

    const result = await provider.check?.();
    await provider.check?.();

    expect(result?.authenticated).toBe(false);
    expect(fetchMock.mock.calls[0]?.[0]).toBe(`${AUTH_URL}/api/v1/refresh_token`);
    expect(navigator.assign).toHaveBeenCalledTimes(1);
    const target = new URL(navigator.assign.mock.calls[0]?.[0] as string);
    expect(`${target.origin}${target.pathname}`).toBe(`${AUTH_URL}/login`);
    expect(target.searchParams.get("rt")).toBe(btoa(CURRENT_URL));
  });

  it("reports a signed-in user as authenticated without leaving the page", async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, authResponseBody()));
    const navigator = fakeNavigator(CURRENT_URL);
    const provider = createAuthProvider({ client, currentUser: userSource(), navigator });

    await expect(provider.check?.()).resolves.toEqual({ authenticated: true });
    expect(navigator.assign).not.toHaveBeenCalled();
  });

  it("shows an outage instead of looping to login when the identity service is unreachable", async () => {
    fetchMock.mockRejectedValue(new TypeError("Failed to fetch"));
    const navigator = fakeNavigator(CURRENT_URL);
    const provider = createAuthProvider({ client, currentUser: userSource(), navigator });
    provider.watchSession();

    const result = await provider.check?.();
    expect(result?.authenticated).toBe(false);
    expect(result?.error).toEqual({
      name: AUTH_UNAVAILABLE,
      message: "Unable to process authentication response",
    });
    // The request and its 3 retries (100, 200, 300 ms), then no more.
    expect(fetchMock).toHaveBeenCalledTimes(4);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(navigator.assign).not.toHaveBeenCalled();
  });

  it("reports a refresh answering 500 with its status and text, and stays on the page", async () => {
    fetchMock.mockImplementation(
      async () => new Response("boom", { status: 500, statusText: "Internal Server Error" }),
    );
    const navigator = fakeNavigator(CURRENT_URL);
    const provider = createAuthProvider({ client, currentUser: userSource(), navigator });
    // The client tells its observers "logged out" when the first refresh fails; that is no sign-out.
    provider.watchSession();

    const started = Date.now();
    const result = await provider.check?.();
    expect(result?.error).toEqual({ name: AUTH_UNAVAILABLE, message: "500 Internal Server Error" });
    expect(fetchMock).toHaveBeenCalledTimes(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(navigator.assign).not.toHaveBeenCalled();
    expect(fetchMock).toHaveBeenCalledTimes(4);
  });

  it("reports an unparsable refresh answer as unprocessable", async () => {
    fetchMock.mockImplementation(async () => new Response("<html>oops</html>", { status: 200 }));
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const provider = createAuthProvider({
      client,
      currentUser: userSource(),
      navigator: fakeNavigator(CURRENT_URL),
    });
    const result = await provider.check?.();
    expect(result?.error?.message).toBe("Unable to process authentication response");
    quiet.mockRestore();
  });

  it("builds the account page URL with the current URL as rt", () => {
    const provider = createAuthProvider({
      client,
      currentUser: userSource(),
      navigator: fakeNavigator(CURRENT_URL),
    });
    const url = new URL(provider.accountPageUrl());
    expect(url.pathname).toBe("/account");
    expect(url.searchParams.get("rt")).toBe(btoa(CURRENT_URL));
  });
});

describe("auth provider logout and session handling (client mocked)", () => {
  it("logout asks the client to log out and follow redirect_to, and drops the cached user", async () => {
    const client = fakeAuthClient();
    const currentUser = userSource();
    const navigator = fakeNavigator();
    const provider = createAuthProvider({ client, currentUser, navigator });

    await expect(provider.logout({})).resolves.toEqual({ success: true });
    expect(client.logout).toHaveBeenCalledWith(true);
    expect(currentUser.clear).toHaveBeenCalled();
    // The client is navigating to redirect_to; the session-ended observer must not race it.
    client.observers.forEach((notify) => {
      notify(false);
    });
    expect(navigator.assign).not.toHaveBeenCalled();
  });

  it("reports a failed logout so the user can retry", async () => {
    const client = fakeAuthClient();
    client.logout.mockRejectedValueOnce(new Error("Service Unavailable"));
    const provider = createAuthProvider({ client, currentUser: userSource(), navigator: fakeNavigator() });

    const result = await provider.logout({});
    expect(result.success).toBe(false);
    expect(result.error?.message).toBe("Service Unavailable");
  });

  it("treats a 401 from the API as the end of the session, other errors not", async () => {
    const provider = createAuthProvider({
      client: fakeAuthClient(),
      currentUser: userSource(),
      navigator: fakeNavigator(),
    });
    await expect(provider.onError({ statusCode: 401, message: "bad token" })).resolves.toEqual({
      logout: true,
    });
    await expect(provider.onError({ statusCode: 403, message: "nope" })).resolves.toEqual({});
  });

  it("sends the tab to login when the session ends elsewhere", async () => {
    const client = fakeAuthClient();
    const navigator = fakeNavigator(CURRENT_URL);
    const provider = createAuthProvider({ client, currentUser: userSource(), navigator });

    const stop = provider.watchSession();
    client.observers.forEach((notify) => {
      notify(true);
    });
    expect(navigator.assign).not.toHaveBeenCalled();
    // The client confirms it: the refresh answered 401.
    vi.mocked(client.getAuthenticationInfoOrNull).mockResolvedValue(null);
    client.observers.forEach((notify) => {
      notify(false);
    });
    await vi.waitFor(() => expect(navigator.assign).toHaveBeenCalled());
    expect(navigator.assign).toHaveBeenCalledWith(
      `${AUTH_URL}/login?rt=${encodeURIComponent(btoa(CURRENT_URL))}`,
    );
    stop();
    expect(client.observers).toHaveLength(0);
  });
});

describe("the identity client as the console creates it", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("refuses an auth URL that is not absolute with the spec's message", () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => createIdentityClient("auth.example.test")).toThrow(/^Unable to initialize auth client/);
    quiet.mockRestore();
  });

  it("fetches the session at start and reports a failing refresh as an error, never unhandled", async () => {
    const fetchMock = vi.fn<typeof fetch>(
      async () => new Response("", { status: 503, statusText: "Service Unavailable" }),
    );
    vi.stubGlobal("fetch", fetchMock);
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    const client = createIdentityClient(AUTH_URL);
    try {
      // The start-up fetch is under way (and its failure swallowed); a caller joins it.
      expect(fetchMock).toHaveBeenCalledTimes(1);
      const failure = await client.getAuthenticationInfoOrNull().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AuthRefreshError);
      expect((failure as AuthRefreshError).message).toBe("503 Service Unavailable");
      expect(fetchMock).toHaveBeenCalledTimes(4);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
      client.destroy();
    }
  });
});
