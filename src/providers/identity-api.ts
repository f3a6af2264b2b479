// Calls to the identity service's client API (/api/fe/v3) as the PropelAuth client makes them:
// the session cookie (credentials included) and a non-empty X-CSRF-Token header. Errors come as
// {error_code, user_facing_error, field_errors?} and become Refine HttpErrors carrying both.
import type { HttpError } from "@refinedev/core";
import type { CreatedApiKey, ExpirationOption, PersonalApiKey } from "../lib/api-keys";

export const IDENTITY_CLIENT_PATH = "/api/fe/v3";

export type IdentityHttpError = HttpError & { code?: string; userFacingError?: string };

export type PersonalApiKeyPage = {
  api_keys: PersonalApiKey[];
  total_api_keys: number;
  current_page: number;
  page_size: number;
  has_more_results: boolean;
};

export type IdentityApi = {
  listPersonalApiKeys: (query: {
    pageNumber: number;
    pageSize: number;
    search?: string;
  }) => Promise<PersonalApiKeyPage>;
  createApiKey: (expirationOption: ExpirationOption) => Promise<CreatedApiKey>;
  deleteApiKey: (apiKeyId: string) => Promise<void>;
};

function identityError(status: number, body: unknown): IdentityHttpError {
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const code = typeof record.error_code === "string" ? record.error_code : "unexpected_error";
  const userFacing = typeof record.user_facing_error === "string" ? record.user_facing_error : undefined;
  const error = Object.assign(new Error(userFacing ?? "An unexpected error has occurred"), {
    statusCode: status,
    code,
    userFacingError: userFacing,
  }) as IdentityHttpError;
  const fields = record.field_errors;
  if (typeof fields === "object" && fields !== null) error.errors = fields as HttpError["errors"];
  return error;
}

export function createIdentityApi({
  authUrl,
  fetchImpl,
}: {
  authUrl: string;
  fetchImpl?: typeof fetch;
}): IdentityApi {
  const base = `${authUrl.replace(/\/+$/, "")}${IDENTITY_CLIENT_PATH}`;

  const request = async <T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await (fetchImpl ?? fetch)(`${base}${path}`, {
        method,
        credentials: "include",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": "-.-" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      // The identity client reports a failed request as unexpected_error with this text.
      throw identityError(503, {
        error_code: "unexpected_error",
        user_facing_error: "An unexpected error has occurred",
      });
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) throw identityError(response.status, parsed);
    return parsed as T;
  };

  return {
    listPersonalApiKeys: ({ pageNumber, pageSize, search }) => {
      const query = new URLSearchParams({ page_number: String(pageNumber), page_size: String(pageSize) });
      if (search) query.set("api_key_search", search);
      return request<PersonalApiKeyPage>("GET", `/personal_api_keys?${query}`);
    },
    createApiKey: (expirationOption) =>
      request<CreatedApiKey>("POST", "/api_keys", { expiration_option: expirationOption }),
    deleteApiKey: async (apiKeyId) => {
      await request<unknown>("DELETE", `/api_keys/${encodeURIComponent(apiKeyId)}`);
    },
  };
}
