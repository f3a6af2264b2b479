import type { FastifySchemaCompiler } from "fastify";
import type { z } from "zod";
import { IdentityError } from "./errors";

/**
 * The one place zod issues become PropelAuth's per-field messages, for the JSON calls (through
 * the validator below) and the hosted pages' forms alike: the issue's path joined with ".", each
 * unknown key "Unknown field.", the first message per field kept. An issue about the whole input
 * (no path) goes under `root`.
 */
export function fieldErrorsOf(error: z.ZodError, root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const k of issue.keys) out[k] ??= "Unknown field.";
      continue;
    }
    out[issue.path.length ? issue.path.join(".") : root] ??= issue.message;
  }
  return out;
}

/** A refused input as the PropelAuth clients read it: 400 invalid_request_fields with the fields. */
export const invalidFields = (error: z.ZodError, root = "body") =>
  new IdentityError("invalid_request_fields", undefined, fieldErrorsOf(error, root));

/**
 * Fastify's validator for the identity routes' zod request schemas (params, query, body): the
 * parsed value replaces the request's, a failure is invalid_request_fields, which the service's
 * error handler renders. A missing body is validated as `{}` (PropelAuth clients send calls
 * without fields with no body at all). `root` names the whole-input field: "body" for the client
 * calls, the one field of a backend call.
 */
export const identityValidator =
  (root = "body"): FastifySchemaCompiler<z.ZodType> =>
  ({ schema }) =>
  (data) => {
    const r = schema.safeParse(data ?? {});
    return r.success ? { value: r.data } : { error: invalidFields(r.error, root) };
  };

/**
 * The same check for input a hosted page assembles from its form before calling the shared
 * actions; the page shows the field errors in place (see hosted-pages/kit.ts asPageError).
 */
export function validInput<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const r = schema.safeParse(data ?? {});
  if (!r.success) throw invalidFields(r.error);
  return r.data;
}
