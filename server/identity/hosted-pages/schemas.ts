import { z } from "zod";

// The request shapes every hosted page shares. Each query parameter and form field is one string:
// a repeated parameter (which Fastify parses into an array) or a non-object form body is refused
// with 400 invalid_request_fields before any handler runs. What a field must contain (an email, a
// password's length) is checked by the page itself, which shows the message beside the field.

/** The return target (`rt`): base64 of a URL; one that is not allowed is ignored by the page. */
export const rt = z.string().max(8192).optional();

/** A one-time token from an emailed link. */
export const token = z.string().max(4096).optional();

export const rtQuery = z.object({ rt });

/** One posted form field, as typed. */
export const field = z.string().optional();

/** A form that posts no fields besides what the URL already says (anything sent is dropped). */
export const noFields = z.object({});
