import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { sendCookies } from "../http";
import { fromOwnPage } from "../origin-check";
import { decodeReturnTarget, encodeReturnTarget } from "../return-target";
import { fieldErrorsOf } from "../validation";

// Shared plumbing of the hosted pages: HTML replies, the `rt` return target, same-origin form
// checks, and turning IdentityErrors into messages shown in place.

export type RtQuery = { rt?: string };

/** What a form page shows besides its return target: values kept, errors in place, one message. */
type PageState = { values?: Record<string, string>; errors?: Record<string, string>; message?: string };

export function pageKit(ctx: IdentityContext) {
  const { config } = ctx;
  const defaultTarget = `${config.publicUrl}/`;
  const returnOrigins = [...config.allowedOrigins, config.authPublicUrl];
  return {
    defaultTarget,
    /** The decoded return URL when allowed, else the console. */
    target: (rt?: string) => decodeReturnTarget(rt, returnOrigins) ?? defaultTarget,
    send: (reply: FastifyReply, status: number, body: string, cookies: string[] = []) => {
      sendCookies(reply, cookies);
      return reply
        .status(status)
        .header("cache-control", "no-store")
        .type("text/html; charset=utf-8")
        .send(body);
    },
    /** A form post from another site must not act for the visitor (login CSRF, account changes). */
    sameOrigin: (req: FastifyRequest) => fromOwnPage(req, config.authPublicUrl),
    /**
     * A posted form's data, or the page state that answers it instead: 403 with `refusal` when it
     * came from another site, 400 with each field's error (the page keeping `keep`) when not valid.
     */
    postedForm: <S extends z.ZodType>(
      req: FastifyRequest,
      form: S,
      values: Record<string, string>,
      refusal: string,
      keep: Record<string, string> = values,
    ): { data: z.output<S> } | { status: number; state: PageState } => {
      if (!fromOwnPage(req, config.authPublicUrl)) return { status: 403, state: { message: refusal } };
      const parsed = form.safeParse(values);
      if (!parsed.success) return { status: 400, state: { values: keep, errors: fieldErrors(parsed.error) } };
      return { data: parsed.data };
    },
    /** /login with a return target that comes back to `path` (itself keeping `rt`). */
    loginUrlBackTo: (path: string, rt?: string) => {
      const back = `${config.authPublicUrl}${withRt(path, rt)}`;
      return `/login?rt=${encodeURIComponent(encodeReturnTarget(back))}`;
    },
  };
}

export const withRt = (path: string, rt?: string) =>
  rt ? `${path}${path.includes("?") ? "&" : "?"}rt=${encodeURIComponent(rt)}` : path;

/** The link under a message page of the sign-in flow. */
export const backToSignIn = (rt?: string) => ({ href: withRt("/login", rt), label: "Back to sign in" });

export const asStrings = (body: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries(body && typeof body === "object" ? (body as Record<string, unknown>) : {}).map(
      ([k, v]) => [k, typeof v === "string" ? v : ""],
    ),
  );

/** A form's errors in place, by field, in the same words the JSON calls use (see validation.ts). */
export const fieldErrors = (error: z.ZodError) => fieldErrorsOf(error, "form");

/** An IdentityError as page state: field errors in place, otherwise one message. */
export function asPageError(err: unknown) {
  if (!(err instanceof IdentityError)) throw err;
  const { retry_after_seconds: _r, ...fields } = err.fieldErrors ?? {};
  const hasFields = Object.keys(fields).length > 0;
  return {
    status: err.status,
    errors: hasFields ? fields : undefined,
    message: hasFields ? undefined : err.message,
  };
}
