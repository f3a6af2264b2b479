import type { AuthenticationInfo } from "@propelauth/javascript";
import { describe, expect, it, vi } from "vitest";
import type { ConsoleConfig } from "../../src/lib/console-config";
import { createServices } from "../../src/providers/create-services";
import { createCurrentUserSource } from "../../src/providers/current-user";
import { createDataProvider } from "../../src/providers/data-provider";
import { createApiFetch } from "../../src/providers/http";
import { API_URL, AUTH_URL, accountsMe, fakeAuthClient, fakeNavigator, jsonResponse } from "./support/fakes";

function setup(token: string | null = "token-123") {
  const fetchImpl = vi.fn<typeof fetch>();
  const apiFetch = createApiFetch({ apiUrl: API_URL, getAccessToken: async () => token, fetchImpl });
  return { fetchImpl, apiFetch, dataProvider: createDataProvider(API_URL, apiFetch) };
}

function requestOf(fetchImpl: ReturnType<typeof vi.fn<typeof fetch>>, index = 0) {
  const [url, init] = fetchImpl.mock.calls[index] ?? [];
  return { url: String(url), init: init ?? {}, headers: new Headers(init?.headers) };
}

describe("data provider", () => {
  it("sends the bearer token and reads a list (bare array) with its total", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValue(jsonResponse(200, [{ id: 1 }, { id: 2 }]));

    const result = await dataProvider.getList({
      resource: "workspaces",
      meta: { apiPath: "/v1/workspaces/" },
    });

    expect(result).toEqual({ data: [{ id: 1 }, { id: 2 }], total: 2 });
    const { url, headers } = requestOf(fetchImpl);
    expect(url).toBe(`${API_URL}/v1/workspaces/`);
    expect(headers.get("Authorization")).toBe("Bearer token-123");
  });

  it("passes meta.query, encodes ids and sends JSON bodies", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValue(jsonResponse(200, { workspace_uuid: "a/b", name: "New" }));

    await dataProvider.update({
      resource: "workspaces",
      id: "a/b",
      variables: { name: "New" },
      meta: { apiPath: "/v1/workspaces/", query: { show_deleted: true, empty: "" } },
    });

    const { url, init, headers } = requestOf(fetchImpl);
    expect(url).toBe(`${API_URL}/v1/workspaces/a%2Fb?show_deleted=true`);
    expect(init.method).toBe("PUT");
    expect(headers.get("Content-Type")).toBe("application/json");
    expect(JSON.parse(String(init.body))).toEqual({ name: "New" });
  });

  it("turns the API error shape into an HttpError with status and message", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValue(
      jsonResponse(404, { error: { code: "not_found", message: "Workspace not found" } }),
    );

    await expect(dataProvider.getOne({ resource: "workspaces", id: "nope" })).rejects.toMatchObject({
      statusCode: 404,
      message: "Workspace not found",
      code: "not_found",
    });
  });

  it("falls back to the status text when the error body is not the documented shape", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValue(new Response("<html>", { status: 502, statusText: "Bad Gateway" }));

    await expect(dataProvider.getList({ resource: "usage" })).rejects.toMatchObject({
      statusCode: 502,
      message: "Bad Gateway",
    });
  });

  it("reports 401 for a rejected token and does not call the API without one", async () => {
    const rejected = setup();
    rejected.fetchImpl.mockResolvedValue(
      jsonResponse(401, { error: { code: "unauthorized", message: "Bad token" } }),
    );
    await expect(rejected.dataProvider.getList({ resource: "workspaces" })).rejects.toMatchObject({
      statusCode: 401,
    });

    const signedOut = setup(null);
    await expect(signedOut.dataProvider.getList({ resource: "workspaces" })).rejects.toMatchObject({
      statusCode: 401,
    });
    expect(signedOut.fetchImpl).not.toHaveBeenCalled();
  });

  it("maps a network failure to a 503 HttpError", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockRejectedValue(new TypeError("Failed to fetch"));
    await expect(dataProvider.getList({ resource: "workspaces" })).rejects.toMatchObject({ statusCode: 503 });
  });

  it("custom() reaches any API path with the method, query and payload given", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValue(jsonResponse(201, { ok: true }));

    const result = await dataProvider.custom?.({
      url: `${API_URL}/v1/workspaces/w1/members`,
      method: "post",
      query: { user_email: "a@x" },
      payload: { role: "member" },
    });

    expect(result?.data).toEqual({ ok: true });
    const { url, init } = requestOf(fetchImpl);
    expect(url).toBe(`${API_URL}/v1/workspaces/w1/members?user_email=a%40x`);
    expect(init.method).toBe("POST");
  });
});

describe("current user source", () => {
  const authInfo = { accessToken: "t", user: { email: "m@x" } } as AuthenticationInfo;

  it("loads /v1/accounts/me once for concurrent readers and caches it", async () => {
    const { fetchImpl, apiFetch } = setup();
    fetchImpl.mockImplementation(async () => jsonResponse(200, accountsMe({ is_admin: true })));
    const source = createCurrentUserSource(apiFetch, async () => authInfo);

    const [a, b] = await Promise.all([source.get(), source.get()]);
    await source.get();

    expect(a.is_admin).toBe(true);
    expect(b).toBe(a);
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    expect(requestOf(fetchImpl).url).toBe(`${API_URL}/v1/accounts/me`);
  });

  it("reloads after the stale time or a clear, and never caches a failure", async () => {
    const { fetchImpl, apiFetch } = setup();
    let now = 0;
    fetchImpl
      .mockResolvedValueOnce(jsonResponse(500, { error: { code: "internal", message: "boom" } }))
      .mockImplementation(async () => jsonResponse(200, accountsMe()));
    const source = createCurrentUserSource(
      apiFetch,
      async () => authInfo,
      1000,
      () => now,
    );

    await expect(source.get()).rejects.toMatchObject({ statusCode: 500 });
    await source.get();
    now = 1500;
    await source.get();
    source.clear();
    await source.get();
    expect(fetchImpl).toHaveBeenCalledTimes(4);
  });

  it("marks impersonation from the token even if the API omits it", async () => {
    const { fetchImpl, apiFetch } = setup();
    fetchImpl.mockImplementation(async () => jsonResponse(200, accountsMe({ is_impersonating: false })));
    const source = createCurrentUserSource(apiFetch, async () => ({
      ...authInfo,
      impersonatorUserId: "staff-1",
    }));
    expect((await source.get()).is_impersonating).toBe(true);
  });
});

describe("revoked access tokens", () => {
  const revoked = () =>
    jsonResponse(401, { error: { code: "token_revoked", message: "The access token was revoked." } });

  /** The console's services on a fake identity client whose forced refresh yields `fresh`. */
  function services(fresh: string | null) {
    const client = fakeAuthClient();
    client.getAuthenticationInfoOrNull = vi.fn(async (force?: boolean) =>
      force
        ? fresh === null
          ? null
          : ({ accessToken: fresh } as unknown as AuthenticationInfo)
        : ({ accessToken: "old-token" } as unknown as AuthenticationInfo),
    );
    const fetchImpl = vi.fn<typeof fetch>();
    const { apiFetch, authProvider } = createServices({
      config: { apiUrl: API_URL, authUrl: AUTH_URL, productName: "Eval Console" } satisfies ConsoleConfig,
      client,
      navigator: fakeNavigator(),
      fetchImpl,
    });
    return { client, fetchImpl, apiFetch, authProvider };
  }

  it("forces a token refresh and retries the call once with the new token", async () => {
    const { client, fetchImpl, apiFetch } = services("new-token");
    fetchImpl.mockResolvedValueOnce(revoked()).mockResolvedValueOnce(jsonResponse(200, [{ id: 1 }]));

    await expect(apiFetch("/v1/workspaces/", { method: "POST", body: { name: "W" } })).resolves.toEqual([
      { id: 1 },
    ]);

    expect(client.getAuthenticationInfoOrNull).toHaveBeenLastCalledWith(true);
    expect(fetchImpl).toHaveBeenCalledTimes(2);
    expect(requestOf(fetchImpl, 0).headers.get("Authorization")).toBe("Bearer old-token");
    const retry = requestOf(fetchImpl, 1);
    expect(retry.headers.get("Authorization")).toBe("Bearer new-token");
    expect(retry.init.method).toBe("POST");
    expect(JSON.parse(String(retry.init.body))).toEqual({ name: "W" });
  });

  it("treats a second refusal, or no session behind the refresh, as signed out (no more retries)", async () => {
    const again = services("still-revoked");
    again.fetchImpl.mockImplementation(async () => revoked());
    const error = await again.apiFetch("/v1/accounts/me").catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 401, code: "token_revoked" });
    expect(again.fetchImpl).toHaveBeenCalledTimes(2);
    await expect(again.authProvider.onError(error)).resolves.toEqual({ logout: true });

    const gone = services(null);
    gone.fetchImpl.mockImplementation(async () => revoked());
    await expect(gone.apiFetch("/v1/accounts/me")).rejects.toMatchObject({ statusCode: 401 });
    expect(gone.fetchImpl).toHaveBeenCalledTimes(1);
  });

  it("does not retry other refusals", async () => {
    const { client, fetchImpl, apiFetch } = services("new-token");
    fetchImpl.mockResolvedValue(jsonResponse(401, { error: { code: "unauthorized", message: "Bad token" } }));
    await expect(apiFetch("/v1/accounts/me")).rejects.toMatchObject({
      statusCode: 401,
      code: "unauthorized",
    });
    fetchImpl.mockResolvedValue(jsonResponse(403, { error: { code: "forbidden", message: "No" } }));
    await expect(apiFetch("/v1/accounts/me")).rejects.toMatchObject({ statusCode: 403 });
    expect(fetchImpl).toHaveBeenCalledTimes(2);
    expect(client.getAuthenticationInfoOrNull).not.toHaveBeenCalledWith(true);
  });
});
