import type { FastifySchemaCompiler, FastifySerializerCompiler } from "fastify";
import { ResponseSerializationError } from "fastify-type-provider-zod";
import type { z } from "zod";
import { ApiError } from "../platform/errors";

/** The value at `path` inside `input`, or undefined when any step is missing. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

const typeName = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`);

/**
 * A 400 whose message names the first offending field, e.g. "body name: name is required.".
 * zod 4 leaves the offending value out of its issues, so `input` (what was validated) tells a
 * missing field apart from one of the wrong type.
 */
function invalid(error: z.ZodError, where: string, input: unknown): ApiError {
  const issue = error.issues[0];
  if (!issue) return new ApiError("invalid_request", `The ${where} is not valid.`);
  if (issue.code === "unrecognized_keys")
    return new ApiError("invalid_request", `Unknown ${where} field(s): ${issue.keys.join(", ")}.`);
  const field = issue.path.join(".");
  if (!field)
    return new ApiError(
      "invalid_request",
      issue.code === "invalid_type" ? `The ${where} must be a JSON object.` : issue.message,
    );
  let message = issue.message;
  if (issue.code === "invalid_type") {
    const value = valueAt(input, issue.path);
    message =
      value === undefined
        ? `${field} is required.`
        : // A schema's own message (e.g. "name must be a string.") already says what is wrong.
          /^Invalid input/.test(issue.message)
          ? `${field} must be ${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}, not ${typeName(value)}.`
          : issue.message;
  }
  return new ApiError("invalid_request", `${where} ${field}: ${message}`);
}

const PARTS: Record<string, string> = {
  params: "path parameter",
  querystring: "query parameter",
  body: "body",
};

/**
 * Fastify's validator for the routes' zod request schemas: the parsed (transformed) value replaces the
 * request's, and a failure is a 400 invalid_request naming the part and field. Fastify hands a
 * missing body over as null.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const where = PARTS[httpPart ?? ""] ?? "request";
  return (data) => {
    const r = schema.safeParse(data);
    return r.success ? { value: r.data } : { error: invalid(r.error, where, data) };
  };
};

/**
 * Fastify's serializer for the routes' zod response schemas: the answer is checked against the
 * schema and only its fields are sent; a mismatch throws (the error handler answers 500). Response
 * schemas describe the JSON as sent (no transforms or codecs), so parsing checks it; the type
 * provider's own serializer encodes instead, which costs about six times as much on large answers
 * (a billing cycle with its 10,000 events).
 */
export const serializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema, method, url }) => {
  // A frozen answer (a route's cached response, see workspaces.ts) cannot change: it is checked
  // and serialized once per route, then its JSON is reused.
  const done = new WeakMap<object, string>();
  return (data) => {
    const frozen = typeof data === "object" && data !== null && Object.isFrozen(data);
    if (frozen) {
      const json = done.get(data);
      if (json !== undefined) return json;
    }
    const r = schema.safeParse(data);
    if (!r.success) throw new ResponseSerializationError(method, url, { cause: r.error });
    const json = JSON.stringify(r.data);
    if (frozen) done.set(data as object, json);
    return json;
  };
};
