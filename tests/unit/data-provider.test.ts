import type { AuthenticationInfo } from "@propelauth/javascript";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ConsoleConfig } from "../../src/lib/console-config";
import { createServices } from "../../src/providers/create-services";
import { createCurrentUserSource } from "../../src/providers/current-user";
import { createDataProviders } from "../../src/providers/data-provider";
import { createApiFetch } from "../../src/providers/http";
import { accountSettings } from "../../src/resources/account-settings";
import { apiKeys } from "../../src/resources/api-keys";
import { billingCycles } from "../../src/resources/billing-cycles";
import type { ConsoleResource } from "../../src/resources/types";
import { usageRecords } from "../../src/resources/usage-records";
import { workspaceMembers } from "../../src/resources/workspace-members";
import { workspaces } from "../../src/resources/workspaces";
import { API_URL, AUTH_URL, accountsMe, fakeAuthClient, fakeNavigator, jsonResponse } from "./support/fakes";

const config = { apiUrl: API_URL, authUrl: AUTH_URL };

function setup(token: string | null = "token-123") {
  const fetchImpl = vi.fn<typeof fetch>();
  const apiFetch = createApiFetch({ apiUrl: API_URL, getAccessToken: async () => token, fetchImpl });
  return { fetchImpl, apiFetch, dataProvider: createDataProviders(config, apiFetch).default };
}

/** A call's resource and meta as Refine makes them: the declaration's meta merged with the hook's. */
const on = (resource: ConsoleResource, meta: Record<string, unknown> = {}) => ({
  resource: resource.name,
  meta: { ...resource.meta, ...meta },
});

function requestOf(fetchImpl: ReturnType<typeof vi.fn<typeof fetch>>, index = 0) {
  const [url, init] = fetchImpl.mock.calls[index] ?? [];
  return { url: String(url), init: init ?? {}, headers: new Headers(init?.headers) };
}

describe("product API data provider", () => {
  it("sends the bearer token and reads a list (bare array) with its total and ids", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValue(jsonResponse(200, [{ workspace_uuid: "w1" }, { workspace_uuid: "w2" }]));

    const result = await dataProvider.getList(on(workspaces));

    expect(result).toEqual({
      data: [
        { workspace_uuid: "w1", id: "w1" },
        { workspace_uuid: "w2", id: "w2" },
      ],
      total: 2,
    });
    const { url, headers } = requestOf(fetchImpl);
    expect(url).toBe(`${API_URL}/v1/workspaces/`);
    expect(headers.get("Authorization")).toBe("Bearer token-123");
  });

  it("passes meta.query, encodes ids and sends JSON bodies", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValue(jsonResponse(200, { workspace_uuid: "a/b", name: "New" }));

    await dataProvider.update({
      ...on(workspaces, { query: { show_deleted: true, empty: "" } }),
      id: "a/b",
      variables: { name: "New" },
    });

    const { url, init, headers } = requestOf(fetchImpl);
    expect(url).toBe(`${API_URL}/v1/workspaces/a%2Fb?show_deleted=true`);
    expect(init.method).toBe("PUT");
    expect(headers.get("Content-Type")).toBe("application/json");
    expect(JSON.parse(String(init.body))).toEqual({ name: "New" });
  });

  it("fills a nested path from meta, adds a member with ?user_email= and removes one by email", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValueOnce(jsonResponse(201, { email: "a+b@acme.test" }));
    await dataProvider.create({
      ...on(workspaceMembers, { workspaceId: "w 1" }),
      variables: { user_email: "a+b@acme.test" },
    });
    expect(requestOf(fetchImpl).url).toBe(
      `${API_URL}/v1/workspaces/w%201/members?user_email=a%2Bb%40acme.test`,
    );
    expect(requestOf(fetchImpl).init.method).toBe("POST");
    expect(requestOf(fetchImpl).init.body).toBeUndefined();

    fetchImpl.mockResolvedValueOnce(new Response(null, { status: 204 }));
    await expect(
      dataProvider.deleteOne({ ...on(workspaceMembers, { workspaceId: "w1" }), id: "a+b@acme.test" }),
    ).resolves.toMatchObject({ data: { id: "a+b@acme.test" } });
    expect(requestOf(fetchImpl, 1).url).toBe(`${API_URL}/v1/workspaces/w1/members/a%2Bb%40acme.test`);
    expect(requestOf(fetchImpl, 1).init.method).toBe("DELETE");

    await expect(dataProvider.getList(on(workspaceMembers))).rejects.toThrow(/needs meta.workspaceId/);
  });

  it("pages, sorts and filters usage records server-side and reads rows under their key", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValue(jsonResponse(200, { records: [{ usage_event_uuid: "e1" }], total: 31 }));

    const result = await dataProvider.getList({
      ...on(usageRecords),
      pagination: { currentPage: 3, pageSize: 10, mode: "server" },
      sorters: [{ field: "cost", order: "desc" }],
      filters: [
        { field: "billing_cycle_uuid", operator: "eq", value: "c1" },
        { field: "workspace_uuid", operator: "in", value: ["w1", "w2"] },
        { field: "search", operator: "contains", value: "  " },
      ],
    });

    expect(result).toEqual({ data: [{ usage_event_uuid: "e1", id: "e1" }], total: 31 });
    const url = new URL(requestOf(fetchImpl).url);
    expect(url.pathname).toBe("/v1/usage/records");
    expect([...url.searchParams]).toEqual([
      ["page", "3"],
      ["page_size", "10"],
      ["sort", "-cost"],
      ["billing_cycle_uuid", "c1"],
      ["workspace_uuid", "w1"],
      ["workspace_uuid", "w2"],
    ]);
  });

  it("turns the API error shape into an HttpError with status and message", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValue(
      jsonResponse(404, { error: { code: "not_found", message: "Workspace not found" } }),
    );

    await expect(dataProvider.getOne({ ...on(workspaces), id: "nope" })).rejects.toMatchObject({
      statusCode: 404,
      message: "Workspace not found",
      code: "not_found",
    });
  });

  it("falls back to the status text when the error body is not the documented shape", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockResolvedValue(new Response("<html>", { status: 502, statusText: "Bad Gateway" }));

    await expect(dataProvider.getList(on(billingCycles))).rejects.toMatchObject({
      statusCode: 502,
      message: "Bad Gateway",
    });
  });

  it("reports 401 for a rejected token and does not call the API without one", async () => {
    const rejected = setup();
    rejected.fetchImpl.mockResolvedValue(
      jsonResponse(401, { error: { code: "unauthorized", message: "Bad token" } }),
    );
    await expect(rejected.dataProvider.getList(on(workspaces))).rejects.toMatchObject({
      statusCode: 401,
    });

    const signedOut = setup(null);
    await expect(signedOut.dataProvider.getList(on(workspaces))).rejects.toMatchObject({
      statusCode: 401,
    });
    expect(signedOut.fetchImpl).not.toHaveBeenCalled();
  });

  it("maps a network failure to a 503 HttpError", async () => {
    const { fetchImpl, dataProvider } = setup();
    fetchImpl.mockRejectedValue(new TypeError("Failed to fetch"));
    await expect(dataProvider.getList(on(workspaces))).rejects.toMatchObject({ statusCode: 503 });
  });

  it("refuses a resource that declares no API", async () => {
    const { dataProvider } = setup();
    await expect(dataProvider.getList(on(accountSettings))).rejects.toThrow(/declares no api/);
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

describe("identity data provider", () => {
  const identity = () => {
    const fetchImpl = vi.fn<typeof fetch>();
    vi.stubGlobal("fetch", fetchImpl);
    const apiFetch = createApiFetch({ apiUrl: API_URL, getAccessToken: async () => "t" });
    return { fetchImpl, dataProvider: createDataProviders(config, apiFetch).identity };
  };
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("lists keys with the session cookie and CSRF header: zero-based pages, page size 10, search", async () => {
    const { fetchImpl, dataProvider } = identity();
    fetchImpl.mockResolvedValue(
      jsonResponse(200, {
        api_keys: [{ api_key_id: "k1", created_at: 1, expires_at_seconds: null, metadata: null }],
        total_api_keys: 11,
        current_page: 1,
        page_size: 10,
        has_more_results: false,
      }),
    );
    const result = await dataProvider.getList({
      ...on(apiKeys),
      pagination: { currentPage: 2, pageSize: 10 },
      filters: [{ field: "api_key_id", operator: "contains", value: " k1 " }],
    });
    expect(result).toMatchObject({ total: 11, data: [{ id: "k1", api_key_id: "k1" }] });
    const { url, init, headers } = requestOf(fetchImpl);
    expect(new URL(url).pathname).toBe("/api/fe/v3/personal_api_keys");
    expect(Object.fromEntries(new URL(url).searchParams)).toEqual({
      page_number: "1",
      page_size: "10",
      api_key_search: "k1",
    });
    expect(init.credentials).toBe("include");
    expect(headers.get("X-CSRF-Token")).toBeTruthy();
    expect(headers.get("Authorization")).toBeNull();
  });

  it("creates at /api_keys and deletes at /api_keys/{id}", async () => {
    const { fetchImpl, dataProvider } = identity();
    fetchImpl.mockResolvedValueOnce(jsonResponse(200, { api_key_id: "k1", api_key_token: "t1" }));
    await expect(
      dataProvider.create({ ...on(apiKeys), variables: { expiration_option: "OneMonth" } }),
    ).resolves.toEqual({ data: { api_key_id: "k1", api_key_token: "t1", id: "k1" } });
    expect(requestOf(fetchImpl).url).toBe(`${AUTH_URL}/api/fe/v3/api_keys`);
    expect(requestOf(fetchImpl).init.method).toBe("POST");
    expect(JSON.parse(String(requestOf(fetchImpl).init.body))).toEqual({ expiration_option: "OneMonth" });

    fetchImpl.mockResolvedValueOnce(new Response("", { status: 200 }));
    await dataProvider.deleteOne({ ...on(apiKeys), id: "a/b" });
    expect(requestOf(fetchImpl, 1).url).toBe(`${AUTH_URL}/api/fe/v3/api_keys/a%2Fb`);
    expect(requestOf(fetchImpl, 1).init.method).toBe("DELETE");
  });

  it("reads the identity error shape and reports a network failure as unexpected_error", async () => {
    const { fetchImpl, dataProvider } = identity();
    fetchImpl.mockResolvedValueOnce(
      jsonResponse(404, { error_code: "not_found", user_facing_error: "API key not found." }),
    );
    await expect(dataProvider.deleteOne({ ...on(apiKeys), id: "k1" })).rejects.toMatchObject({
      statusCode: 404,
      code: "not_found",
      userFacingError: "API key not found.",
    });

    fetchImpl.mockRejectedValueOnce(new TypeError("Failed to fetch"));
    await expect(dataProvider.deleteOne({ ...on(apiKeys), id: "k1" })).rejects.toMatchObject({
      code: "unexpected_error",
      message: "An unexpected error has occurred",
    });
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
