/**
 * The request fields routes read, each defined once in one set of words ("x must be a UUID.",
 * "x must not be empty."…): uuids, emails, text, USD amounts, days, an eval run's id. Response
 * shapes are in schemas.ts and contract/.
 */
import { z } from "zod";
import { MAX_EVAL_RUN_ID_LENGTH } from "../../contract/eval-runs";
import { parseUsd } from "../../contract/money";
import { isStorableText } from "../../contract/storable-text";
import { parseDay } from "../metering/billing/billing";

/** A uuid, refused as "`field` must be a UUID.". */
export const uuidField = (field: string) => z.uuid({ error: `${field} must be a UUID.` });

/** An email address, trimmed and lower-cased (addresses are stored in lower case). */
export const emailField = (field: string) =>
  z
    .string({ error: `${field} must be a string.` })
    .trim()
    .max(254, { error: `${field} is too long.` })
    .pipe(z.email({ error: `${field} must be an email address.` }))
    .transform((v) => v.toLowerCase());

/** Trimmed, non-empty text without NUL or unpaired surrogates, at most `max` characters. */
export const textField = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string.` })
    .refine(isStorableText, { error: `${field} must not contain NUL characters or unpaired surrogates.` })
    .trim()
    .min(1, { error: `${field} must not be empty.` })
    .max(max, { error: `${field} must be at most ${max} characters.` });

/** Free text of a query (a search, a filter value): trimmed, at most `max` characters, maybe empty. */
export const queryTextField = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string.` })
    .trim()
    .max(max, { error: `${field} must be at most ${max} characters.` });

const USD = /^-?\d{1,13}(\.\d{1,6})?$/;

/**
 * An exact decimal USD string read as micro-dollars: at most 6 decimals and `maxUsd` either way,
 * negative only when `negative`, zero only when `zero`. Numbers are refused: a JSON number may
 * already have lost the cents it was meant to carry.
 */
export const usdField = (field: string, opts: { maxUsd: number; negative?: boolean; zero?: boolean }) =>
  z
    .string({ error: `${field} must be a USD decimal string such as "12.50".` })
    .trim()
    .regex(USD, { error: `${field} must be a USD decimal string such as "12.50" (at most 6 decimals).` })
    .transform((v) => parseUsd(v))
    .refine((m) => opts.negative || m >= 0n, { error: `${field} cannot be negative.` })
    .refine((m) => opts.zero || m !== 0n, { error: `${field} cannot be zero.` })
    .refine((m) => (m < 0n ? -m : m) <= BigInt(opts.maxUsd) * 1_000_000n, {
      error: `${field} must be at most ${opts.maxUsd.toLocaleString("en-US")} USD${opts.negative ? " either way" : ""}.`,
    })
    .meta({ description: 'USD as an exact decimal string, e.g. "12.34" or "0.0125".' });

/** A calendar day "YYYY-MM-DD" from 2000 to 2100 (billing cycles start and end at midnight UTC). */
export const dayField = (field: string) =>
  z
    .string({ error: `${field} must be a date like 2026-03-01.` })
    .refine((v) => parseDay(v) !== null && v >= "2000-01-01" && v <= "2100-01-01", {
      error: `${field} must be a date like 2026-03-01, from 2000-01-01 to 2100-01-01.`,
    })
    .meta({ description: "YYYY-MM-DD, midnight UTC." });

/**
 * An organization's uuid as an operator may type it, in any case: organizations' uuids are stored
 * in lower case, so an upper-case one would otherwise match nothing (an empty list, a price rule
 * that prices no event). Every field that takes an organization uuid from an operator reads it through this.
 */
export const organizationUuidField = (error: string) =>
  z
    .uuid({ error })
    .transform((v) => v.toLowerCase())
    .meta({ description: "An organization's uuid, in any case." });

/** An eval run's id in a path: the caller's own (not necessarily a uuid), storable text. */
export const EvalRunParamsSchema = z.strictObject({
  eval_run_uuid: z
    .string()
    .min(1, { error: "eval_run_uuid must not be empty." })
    .max(MAX_EVAL_RUN_ID_LENGTH, {
      error: `eval_run_uuid must be at most ${MAX_EVAL_RUN_ID_LENGTH} characters.`,
    })
    .refine(isStorableText, {
      error: "eval_run_uuid must not contain NUL characters or unpaired surrogates.",
    }),
});
