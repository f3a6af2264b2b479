// Calls to the identity service's client API (/api/fe/v3) as the PropelAuth client makes them:
// the session cookie (credentials included) and a non-empty X-CSRF-Token header. Errors come as
// {error_code, user_facing_error, field_errors?} and become Refine HttpErrors carrying all three.
import type { HttpError } from "@refinedev/core";
import { type ApiFetch, fetchAt } from "./http";

export const IDENTITY_CLIENT_PATH = "/api/fe/v3";

export type IdentityHttpError = HttpError & { code?: string; userFacingError?: string };

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

/** The identity client API's base URL for the service at `authUrl`. */
export function identityClientUrl(authUrl: string): string {
  return `${authUrl.replace(/\/+$/, "")}${IDENTITY_CLIENT_PATH}`;
}

export function createIdentityFetch({
  authUrl,
  fetchImpl,
}: {
  authUrl: string;
  fetchImpl?: typeof fetch;
}): ApiFetch {
  const base = identityClientUrl(authUrl);
  const call = async <T>(url: string, request: Parameters<ApiFetch>[1] = {}): Promise<T> => {
    let response: Response;
    try {
      response = await (fetchImpl ?? fetch)(url, {
        method: request.method ?? "GET",
        credentials: "include",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": "-.-", ...request.headers },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
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
  return fetchAt(base, call);
}
