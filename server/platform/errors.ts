import type { FastifyError, FastifyInstance } from "fastify";
import { errorChain, isDatabaseUnavailable } from "./database";
import { DomainError, type RefusalKind } from "./domain-error";

/**
 * The product API's error catalogue: every code it answers, with its one status and the message
 * sent when a failure has nothing more specific to say. Closed: an error of the API carries one of
 * these codes (the OpenAPI document lists them).
 */
export const API_ERRORS = {
  invalid_request: [400, "The request is not valid."],
  invalid_json: [400, "The request body is not valid JSON."],
  series_too_long: [400, "The series has too many buckets; use a coarser grouping."],
  unauthorized: [401, "Not signed in."],
  token_revoked: [401, "The access token was revoked. Refresh it or sign in again."],
  forbidden: [403, "You are not allowed to do that."],
  not_found: [404, "Not found."],
  user_not_in_organization: [404, "The user is not a member of your organization."],
  member_not_found: [404, "The user is not a member of this workspace."],
  conflict: [409, "The change conflicts with the current state."],
  not_deleted: [409, "The workspace is not deleted."],
  already_revoked: [409, "The ingestion key is already revoked."],
  spend_limit_exceeded: [
    402,
    "The workspace has reached its spend limit for this billing cycle; an administrator can raise the budget.",
  ],
  query_timeout: [
    422,
    "The query ran past its time limit and was stopped; narrow the period, the filters or the grouping.",
  ],
  payload_too_large: [413, "The request body is too large."],
  uri_too_long: [414, "A path parameter is too long."],
  unsupported_media_type: [415, "The request body must be JSON."],
  rate_limited: [429, "Too many requests. Try again later."],
  too_many_exports: [429, "Too many exports at once. Try again when one has finished."],
  too_many_reads: [429, "Too many reports, exports or searches at once. Try again when one has finished."],
  internal_error: [500, "An unexpected error occurred."],
  identity_unavailable: [503, "The identity service is unavailable. Please try again."],
  database_unavailable: [503, "The database is unavailable. Please try again."],
} as const satisfies Record<string, readonly [number, string]>;

export type ApiErrorCode = keyof typeof API_ERRORS;

export const API_ERROR_CODES = Object.keys(API_ERRORS) as [ApiErrorCode, ...ApiErrorCode[]];

/** A product API error: rendered as {"error": {"code", "message"}} with its code's status. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    message?: string,
    /** Figures the caller can act on, sent beside code and message (a 402's shortfall). */
    readonly details?: Record<string, string | number | null>,
  ) {
    const [status, defaultMessage] = API_ERRORS[code];
    super(message ?? defaultMessage);
    this.status = status;
  }
}

/** Fastify's own refusals of a request body, in the catalogue's words. */
const FASTIFY_CODES: Record<string, [ApiErrorCode, string?]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ["unsupported_media_type"],
  FST_ERR_CTP_EMPTY_JSON_BODY: ["invalid_json", "The request body is empty but declared as JSON."],
  FST_ERR_CTP_INVALID_JSON_BODY: ["invalid_json"],
  FST_ERR_CTP_BODY_TOO_LARGE: ["payload_too_large"],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ["invalid_request", "The Content-Length header is wrong."],
};

/** Other client errors a plugin may raise, by status; anything else is a 400 invalid_request. */
const CLIENT_STATUS_CODES: Record<number, ApiErrorCode> = {
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

/**
 * SQLSTATEs a statement fails with when a value sent by the caller cannot be stored or read as
 * the column's type: character not in the encoding (a NUL), untranslatable character, and dates
 * out of the type's range. Input checks refuse these first; this is the safety net: a 400.
 */
const UNSTORABLE_INPUT: Record<string, string> = {
  "22021": "A text value contains a character that cannot be stored (such as NUL).",
  "22P05": "A text value contains a character that cannot be stored.",
  "22007": "A date or time value is not valid.",
  "22008": "A date or time value is out of range.",
};

function unstorableInput(err: unknown): string | null {
  for (const e of errorChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && UNSTORABLE_INPUT[code]) return UNSTORABLE_INPUT[code];
  }
  return null;
}

export function errorBody(
  code: ApiErrorCode,
  message: string = API_ERRORS[code][1],
  details?: Record<string, string | number | null>,
) {
  return { error: { code, message, ...details } };
}

/** A domain refusal's code in the catalogue, by its kind. */
const REFUSAL_CODES: Record<RefusalKind, ApiErrorCode> = {
  invalid: "invalid_request",
  not_found: "not_found",
  conflict: "conflict",
};

/** An error the API answers as it is (ApiError), or a domain refusal in the catalogue's words; else null. */
export function refusalOf(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return new ApiError(REFUSAL_CODES[err.kind], err.message);
  return null;
}

/** What a failure becomes for the caller (null: an unexpected error, logged and answered 500). */
function toApiError(err: FastifyError): ApiError | null {
  const refusal = refusalOf(err);
  if (refusal) return refusal;
  const known = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (known) return new ApiError(...known);
  if (err instanceof SyntaxError) return new ApiError("invalid_json");
  // statement_timeout (PostgreSQL), or the embedded database's read limit: the request asked for
  // more work than one call may take, not a fault of the server's.
  if ([...errorChain(err)].some((e) => (e as { code?: unknown }).code === "57014"))
    return new ApiError("query_timeout");
  const unstorable = unstorableInput(err);
  if (unstorable) return new ApiError("invalid_request", unstorable);
  // While the database is away (restarting, failing over, unreachable) a call fails for a reason
  // that is no fault of the caller's and passes: 503 with Retry-After, which clients and load
  // balancers retry, instead of the 500 of an unexpected error.
  if (isDatabaseUnavailable(err)) return new ApiError("database_unavailable");
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500)
    return new ApiError(CLIENT_STATUS_CODES[status] ?? "invalid_request", err.message);
  return null;
}

/**
 * Installs the product API's error shape: every failure is JSON with a code of the catalogue; 5xx
 * never leak details. A response that does not match its route's schema (a bug of ours) is
 * logged with the schema's complaint and answered like any unexpected error: 500 internal_error.
 */
export function installApiErrors(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const known = toApiError(err);
    if (known) {
      if (known.status >= 500) {
        req.log.warn({ err }, known.message);
        reply.header("retry-after", "1");
      }
      return reply.status(known.status).send(errorBody(known.code, known.message, known.details));
    }
    req.log.error(
      { err },
      err.code === "FST_ERR_RESPONSE_SERIALIZATION"
        ? "response does not match its schema"
        : "unhandled error",
    );
    return reply.status(500).send(errorBody("internal_error"));
  });
}
