import type { FastifyError, FastifyInstance } from "fastify";
import { errorChain } from "./database";

/** A product API error: rendered as {"error": {"code", "message"}} with its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const FASTIFY_CODES: Record<string, [string, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ["unsupported_media_type", "The request body must be JSON."],
  FST_ERR_CTP_EMPTY_JSON_BODY: ["invalid_json", "The request body is empty but declared as JSON."],
  FST_ERR_CTP_BODY_TOO_LARGE: ["payload_too_large", "The request body is too large."],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ["bad_request", "The Content-Length header is wrong."],
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

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

/** Installs the product API's error shape: every failure is JSON with a code; 5xx never leak details. */
export function installApiErrors(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof ApiError) return reply.status(err.status).send(errorBody(err.code, err.message));
    const known = err.code ? FASTIFY_CODES[err.code] : undefined;
    if (known) return reply.status(err.statusCode ?? 400).send(errorBody(known[0], known[1]));
    if (err instanceof SyntaxError || err.code === "FST_ERR_CTP_INVALID_JSON_BODY")
      return reply.status(400).send(errorBody("invalid_json", "The request body is not valid JSON."));
    if (err.validation) return reply.status(400).send(errorBody("invalid_request", err.message));
    const unstorable = unstorableInput(err);
    if (unstorable) return reply.status(400).send(errorBody("invalid_request", unstorable));
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500)
      return reply.status(status).send(errorBody("bad_request", err.message));
    req.log.error({ err }, "unhandled error");
    return reply.status(500).send(errorBody("internal_error", "An unexpected error occurred."));
  });
}
