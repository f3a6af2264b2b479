import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { IdentityContext } from "../context";
import { IdentityError } from "../errors";
import { requireSession } from "../fe/plumbing";
import { sendCookies } from "../http";
import { type Actor, actorOf } from "../orgs/access";
import { decodeReturnTarget, encodeReturnTarget } from "../return-target";
import { fieldErrorsOf } from "../validation";

// The one kit of the hosted pages (sign-in, account, organizations, SAML, social, unlock): HTML
// replies, the `rt` return target, the same-origin rule for form posts, the sign-in detour, and
// IdentityErrors turned into messages shown in place. The pages' HTML shell is html.ts.

/** What a form page shows besides its return target: values kept, errors in place, one message. */
type PageState = { values?: FormValues; errors?: Record<string, string>; message?: string };

/** A posted form's fields as typed (a field the form did not send is undefined). */
export type FormValues = Record<string, string | undefined>;

export type PageKit = ReturnType<typeof pageKit>;

export function pageKit(ctx: IdentityContext) {
  const { config } = ctx;
  const consoleUrl = `${config.publicUrl}/`;
  const returnOrigins = [...config.allowedOrigins, config.authPublicUrl];
  const loginUrlBackTo = (path: string, rt?: string) => {
    const back = `${config.authPublicUrl}${withRt(path, rt)}`;
    return `/login?rt=${encodeURIComponent(encodeReturnTarget(back))}`;
  };
  const returnHere = (req: FastifyRequest) =>
    encodeURIComponent(encodeReturnTarget(`${config.authPublicUrl}${req.url}`));
  return {
    consoleUrl,
    /** The decoded return URL when it is on an allowed origin, else null. */
    allowedTarget: (rt?: string) => decodeReturnTarget(rt, returnOrigins),
    /** Where the page returns to: the decoded `rt` when allowed, else the console. */
    target: (rt?: string) => decodeReturnTarget(rt, returnOrigins) ?? consoleUrl,
    /** `rt` when it names an allowed return URL (kept on the page's links and forms), else undefined. */
    keptRt: (rt?: string) => (rt && decodeReturnTarget(rt, returnOrigins) ? rt : undefined),
    send: (reply: FastifyReply, status: number, body: string, cookies: string[] = []) => {
      sendCookies(reply, cookies);
      return reply
        .status(status)
        .header("cache-control", "no-store")
        .type("text/html; charset=utf-8")
        .send(body);
    },
    /**
     * A posted form's data, or the page state that answers it instead: 400 with each field's error
     * (the page keeping `keep`) when not valid. (A form posted from another site never gets here:
     * origin-check.ts refuses it first.)
     */
    postedForm: <S extends z.ZodType>(
      form: S,
      values: FormValues,
      keep: FormValues = values,
    ): { data: z.output<S> } | { status: number; state: PageState } => {
      const parsed = form.safeParse(values);
      if (!parsed.success) return { status: 400, state: { values: keep, errors: fieldErrors(parsed.error) } };
      return { data: parsed.data };
    },
    /** /login with a return target that comes back to `path` (itself keeping `rt`). */
    loginUrlBackTo,
    /** This page's own address as an `rt` for the sign-in and sign-up pages. */
    returnHere,
    /** The sign-in page, coming back to this very request's page afterwards. */
    toLogin: (req: FastifyRequest, reply: FastifyReply) =>
      reply.redirect(`/login?rt=${returnHere(req)}`, 303),
    /** The signed-in user, or null when signed out or disabled. */
    async actorOrNull(req: FastifyRequest): Promise<Actor | null> {
      try {
        return actorOf(await requireSession(ctx, req));
      } catch (err) {
        if (err instanceof IdentityError) return null;
        throw err;
      }
    },
  };
}

export const withRt = (path: string, rt?: string) =>
  rt ? `${path}${path.includes("?") ? "&" : "?"}rt=${encodeURIComponent(rt)}` : path;

/** The link under a message page of the sign-in flow. */
export const backToSignIn = (rt?: string) => ({ href: withRt("/login", rt), label: "Back to sign in" });

/** A form's errors in place, by field, in the same words the JSON calls use (see validation.ts). */
export const fieldErrors = (error: z.ZodError) => fieldErrorsOf(error, "form");

/** The message to show for a refusal: the first field's message, else the error's own. */
export const firstError = (e: IdentityError) => Object.values(e.fieldErrors ?? {})[0] ?? e.message;

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
