// Fetch wrapper for the product API: adds the bearer token and turns the API's error shape
// {"error": {"code", "message"}} into Refine's HttpError, which drives notifications and onError.
import type { HttpError } from "@refinedev/core";

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];

export type ApiRequest = {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Takes a successful response instead of its JSON body being read (streamed downloads). */
  read?: (response: Response) => Promise<unknown>;
};

export type ApiFetch = <T = unknown>(path: string, request?: ApiRequest) => Promise<T>;

export type ApiFetchOptions = {
  apiUrl: string;
  /**
   * Current access token, or null when signed out. With `forceRefresh` a new one is fetched from
   * the identity service even if the cached one has not expired.
   */
  getAccessToken: (opts?: { forceRefresh?: boolean }) => Promise<string | null>;
  fetchImpl?: typeof fetch;
};

export function httpError(statusCode: number, message: string, code?: string): HttpError {
  // HttpError is an interface extending Error; a real Error keeps stack traces useful.
  const error = Object.assign(new Error(message), { statusCode }) as HttpError;
  if (code) error.code = code;
  return error;
}

/** The API's error message, or a generic one when the body is not the documented shape. */
export function errorFromResponse(status: number, statusText: string, body: unknown): HttpError {
  const detail =
    typeof body === "object" && body !== null && "error" in body
      ? (body as { error?: { code?: unknown; message?: unknown } }).error
      : undefined;
  const message =
    typeof detail?.message === "string" && detail.message !== ""
      ? detail.message
      : statusText || `Request failed with status ${status}`;
  const code = typeof detail?.code === "string" ? detail.code : undefined;
  return httpError(status, message, code);
}

export function buildUrl(apiUrl: string, path: string, query?: Record<string, QueryValue>): string {
  const url = new URL(`${apiUrl.replace(/\/+$/, "")}${path.startsWith("/") ? path : `/${path}`}`);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === "") continue;
    if (Array.isArray(value)) {
      for (const item of value) url.searchParams.append(key, String(item));
    } else {
      url.searchParams.set(key, String(value));
    }
  }
  return url.toString();
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The API refused a token that identity revoked (sign-out elsewhere, password or role change): a
 * fresh one from the still-valid session may carry the new rights.
 */
export const TOKEN_REVOKED = "token_revoked";

/** A fetch of the service at `baseUrl` that sends each request with `call`, at the URL of its path
 * and query. The product API's fetch and the identity service's are both made with it. */
export function fetchAt(
  baseUrl: string,
  call: <T>(url: string, request: ApiRequest) => Promise<T>,
): ApiFetch {
  return <T>(path: string, request: ApiRequest = {}): Promise<T> =>
    call<T>(buildUrl(baseUrl, path, request.query), request);
}

export function createApiFetch({ apiUrl, getAccessToken, fetchImpl }: ApiFetchOptions): ApiFetch {
  const signedOut = () => httpError(401, "You are not signed in.", "unauthenticated");
  return fetchAt(apiUrl, call);

  async function call<T>(url: string, request: ApiRequest): Promise<T> {
    const token = await getAccessToken();
    if (!token) throw signedOut();
    try {
      return await send<T>(token, url, request);
    } catch (error) {
      if ((error as HttpError).statusCode !== 401 || (error as HttpError).code !== TOKEN_REVOKED) throw error;
    }
    // Once: force a refresh and retry; a second refusal is the end of the session (onError).
    const fresh = await getAccessToken({ forceRefresh: true });
    if (!fresh) throw signedOut();
    return send<T>(fresh, url, request);
  }

  async function send<T>(token: string, url: string, request: ApiRequest): Promise<T> {
    const headers: Record<string, string> = {
      Accept: "application/json",
      Authorization: `Bearer ${token}`,
      ...request.headers,
    };
    if (request.body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await (fetchImpl ?? fetch)(url, {
        method: request.method ?? "GET",
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      });
    } catch {
      // Network failure or CORS refusal: no status to report, so 503 like an unreachable service.
      throw httpError(503, "The server could not be reached. Check your connection and try again.");
    }
    if (response.ok && request.read) return (await request.read(response)) as T;
    const body = await readJson(response);
    if (!response.ok) throw errorFromResponse(response.status, response.statusText, body);
    return body as T;
  }
}
