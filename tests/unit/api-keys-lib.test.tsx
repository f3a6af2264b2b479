import { describe, expect, it, vi } from "vitest";
import {
  apiKeyErrorMessage,
  DEFAULT_EXPIRATION,
  EXPIRATION_OPTIONS,
  expiresLabel,
  formatEpochDate,
  isExpirationOption,
  pageCount,
  paginationText,
  searchFilters,
  withSearch,
} from "../../src/lib/api-keys";
import { createDataProvider } from "../../src/providers/data-provider";
import { createApiFetch } from "../../src/providers/http";
import { createIdentityApi } from "../../src/providers/identity-api";
import { API_URL, AUTH_URL, jsonResponse } from "./support/fakes";

describe("API key rules", () => {
  it("offers the five expiration options with human labels, one year by default", () => {
    expect(EXPIRATION_OPTIONS.map((o) => o.value)).toEqual([
      "TwoWeeks",
      "OneMonth",
      "ThreeMonths",
      "SixMonths",
      "OneYear",
    ]);
    expect(EXPIRATION_OPTIONS.map((o) => o.label)).toEqual([
      "Two weeks",
      "One month",
      "Three months",
      "Six months",
      "One year",
    ]);
    expect(DEFAULT_EXPIRATION).toBe("OneYear");
    expect(isExpirationOption("SixMonths")).toBe(true);
    expect(isExpirationOption("Never")).toBe(false);
  });

  it("shows dates in UTC and Never for a key without expiry", () => {
    expect(formatEpochDate(Date.UTC(2027, 0, 5, 23, 59) / 1000)).toBe("Jan 5, 2027");
    expect(expiresLabel(null)).toBe("Never");
    expect(expiresLabel(undefined)).toBe("Never");
    expect(expiresLabel(Date.UTC(2026, 11, 31) / 1000)).toBe("Dec 31, 2026");
    expect(formatEpochDate(undefined)).toBe("-");
  });

  it("writes the pagination line from a zero-based page", () => {
    expect(paginationText(0, 0)).toBe("Showing page 1 of 1 (0 total)");
    expect(paginationText(0, 10)).toBe("Showing page 1 of 1 (10 total)");
    expect(paginationText(1, 11)).toBe("Showing page 2 of 2 (11 total)");
    expect(paginationText(2, 25)).toBe("Showing page 3 of 3 (25 total)");
    expect(pageCount(21)).toBe(3);
    expect(pageCount(undefined)).toBe(1);
  });

  it("resets the page to 0 when the search text changes, not otherwise", () => {
    const state = { search: "abc", page: 3 };
    expect(withSearch(state, "abcd")).toEqual({ search: "abcd", page: 0 });
    expect(withSearch(state, "")).toEqual({ search: "", page: 0 });
    expect(withSearch(state, " abc ")).toBe(state);
    expect(searchFilters(" k1 ")).toEqual([{ field: "api_key_id", operator: "contains", value: "k1" }]);
  });

  it("prefers the service's own text, else the fallback for the error code", () => {
    expect(apiKeyErrorMessage("list", { code: "action_disabled" })).toBe("Personal API keys are disabled");
    expect(apiKeyErrorMessage("list", { code: "not_logged_in" })).toBe("Unauthorized");
    expect(apiKeyErrorMessage("list", { code: "invalid_request_fields" })).toBe("Bad request");
    expect(apiKeyErrorMessage("create", { code: "action_forbidden" })).toBe(
      "No permission to create a personal API key",
    );
    expect(apiKeyErrorMessage("create", { code: "bad_request" })).toBe("Bad request");
    expect(apiKeyErrorMessage("create", { code: "action_disabled" })).toBe("Personal API keys are disabled");
    expect(apiKeyErrorMessage("delete", { code: "not_found" })).toBe("API key not found");
    expect(apiKeyErrorMessage("delete", { code: "action_forbidden" })).toBe(
      "No permission to delete API key",
    );
    expect(apiKeyErrorMessage("delete", { code: "db_error" })).toBe("Unexpected error");
    expect(apiKeyErrorMessage("create", null)).toBe("Unexpected error");
    expect(
      apiKeyErrorMessage("create", { code: "bad_request", userFacingError: "Invalid expiration option." }),
    ).toBe("Invalid expiration option.");
  });
});

describe("identity client calls", () => {
  it("sends the session cookie and a CSRF header, and reads the error shape", async () => {
    const fetchImpl = vi.fn<typeof fetch>();
    const api = createIdentityApi({ authUrl: `${AUTH_URL}/`, fetchImpl });
    fetchImpl.mockResolvedValueOnce(jsonResponse(200, { api_key_id: "k1", api_key_token: "t1" }));
    await expect(api.createApiKey("OneMonth")).resolves.toEqual({ api_key_id: "k1", api_key_token: "t1" });
    const [url, init] = fetchImpl.mock.calls[0] ?? [];
    expect(String(url)).toBe(`${AUTH_URL}/api/fe/v3/api_keys`);
    expect(init?.method).toBe("POST");
    expect(init?.credentials).toBe("include");
    expect(new Headers(init?.headers).get("X-CSRF-Token")).toBeTruthy();
    expect(JSON.parse(String(init?.body))).toEqual({ expiration_option: "OneMonth" });

    fetchImpl.mockResolvedValueOnce(
      jsonResponse(404, { error_code: "not_found", user_facing_error: "API key not found." }),
    );
    await expect(api.deleteApiKey("a/b")).rejects.toMatchObject({
      statusCode: 404,
      code: "not_found",
      userFacingError: "API key not found.",
    });
    expect(String(fetchImpl.mock.calls[1]?.[0])).toBe(`${AUTH_URL}/api/fe/v3/api_keys/a%2Fb`);

    fetchImpl.mockRejectedValueOnce(new TypeError("Failed to fetch"));
    await expect(api.deleteApiKey("k1")).rejects.toMatchObject({
      code: "unexpected_error",
      message: "An unexpected error has occurred",
    });
  });

  it("lists keys through the data provider: zero-based pages, page size 10, search", async () => {
    const identityFetch = vi.fn<typeof fetch>(async () =>
      jsonResponse(200, {
        api_keys: [{ api_key_id: "k1", created_at: 1, expires_at_seconds: null, metadata: null }],
        total_api_keys: 11,
        current_page: 1,
        page_size: 10,
        has_more_results: false,
      }),
    );
    const apiFetch = createApiFetch({ apiUrl: API_URL, getAccessToken: async () => "t" });
    const provider = createDataProvider(API_URL, apiFetch, {
      identityApi: (authUrl) => createIdentityApi({ authUrl, fetchImpl: identityFetch }),
    });
    const result = await provider.getList({
      resource: "api-keys",
      pagination: { currentPage: 2, pageSize: 10 },
      filters: [{ field: "api_key_id", operator: "contains", value: " k1 " }],
      meta: { identityUrl: AUTH_URL },
    });
    expect(result).toMatchObject({
      total: 11,
      data: [{ id: "k1", api_key_id: "k1" }],
      hasMoreResults: false,
    });
    const url = new URL(String(identityFetch.mock.calls[0]?.[0]));
    expect(url.pathname).toBe("/api/fe/v3/personal_api_keys");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      page_number: "1",
      page_size: "10",
      api_key_search: "k1",
    });
  });

  it("adds a member with ?user_email= and removes one by email", async () => {
    const fetchImpl = vi.fn<typeof fetch>(async () => jsonResponse(201, { email: "x@y" }));
    const apiFetch = createApiFetch({ apiUrl: API_URL, getAccessToken: async () => "t", fetchImpl });
    const provider = createDataProvider(API_URL, apiFetch);
    await provider.create({
      resource: "workspace-members",
      variables: { user_email: "a+b@acme.test" },
      meta: { workspaceId: "w 1" },
    });
    const [url, init] = fetchImpl.mock.calls[0] ?? [];
    expect(String(url)).toBe(`${API_URL}/v1/workspaces/w%201/members?user_email=a%2Bb%40acme.test`);
    expect(init?.method).toBe("POST");
    expect(init?.body).toBeUndefined();

    fetchImpl.mockResolvedValueOnce(new Response(null, { status: 204 }));
    await provider.deleteOne({
      resource: "workspace-members",
      id: "a+b@acme.test",
      meta: { workspaceId: "w1" },
    });
    expect(String(fetchImpl.mock.calls[1]?.[0])).toBe(
      `${API_URL}/v1/workspaces/w1/members/a%2Bb%40acme.test`,
    );
    expect(fetchImpl.mock.calls[1]?.[1]?.method).toBe("DELETE");
  });
});
