/**
 * What the operator route plugins share: the request fields they all read (text, money, days, the
 * organization named in the path) and their error answers.
 */
import { z } from "zod";
import { parseUsd } from "../../../contract/money";
import { type Org, parseDay, resolveOrganization } from "../../metering/billing/billing";
import { isStorableText } from "../../metering/ingestion/events";
import type { Db } from "../../platform/database";
import { failure } from "../schemas";

/** The refusals every operator route may answer before it looks at its input. */
export const OPERATOR_ERRORS = {
  400: failure("Invalid request"),
  401: failure("No bearer token, or one that is not valid"),
  403: failure("Not a provider operator"),
};

/** Trimmed, non-empty text without NUL or unpaired surrogates, at most `max` characters. */
export const operatorText = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string.` })
    .refine(isStorableText, { error: `${field} must not contain NUL characters or unpaired surrogates.` })
    .trim()
    .min(1, { error: `${field} must not be empty.` })
    .max(max, { error: `${field} must be at most ${max} characters.` });

/** The largest amount an operator may record in one payment or prepay for one group. */
export const MAX_OPERATOR_AMOUNT_USD = 1_000_000_000;

const USD = /^-?\d{1,13}(\.\d{1,6})?$/;

/**
 * An exact decimal USD string read as micro-dollars: at most 6 decimals and `maxUsd` either way,
 * negative only when `negative`, zero only when `zero`. Numbers are refused: a JSON number may
 * already have lost the cents it was meant to carry.
 */
export const usdInput = (field: string, opts: { maxUsd: number; negative?: boolean; zero?: boolean }) =>
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
export const dayInput = (field: string) =>
  z
    .string({ error: `${field} must be a date like 2026-03-01.` })
    .refine((v) => parseDay(v) !== null && v >= "2000-01-01" && v <= "2100-01-01", {
      error: `${field} must be a date like 2026-03-01, from 2000-01-01 to 2100-01-01.`,
    })
    .meta({ description: "YYYY-MM-DD, midnight UTC." });

/**
 * An organization's uuid as an operator may type it, in any case: organizations' uuids are stored
 * in lower case, so an upper-case one would otherwise match nothing (an empty list, a price rule
 * that prices no event). Every operator field that takes an organization uuid reads it through this.
 */
export const organizationUuidInput = (error: string) =>
  z
    .uuid({ error })
    .transform((v) => v.toLowerCase())
    .meta({ description: "An organization's uuid, in any case." });

export const OrganizationParamsSchema = z.strictObject({
  organization: operatorText("organization", 200).meta({
    description: "The organization's uuid, slug or exact name.",
  }),
});

/**
 * The organization named by uuid, slug or exact name; 404 when none is (resolveOrganization's
 * refusals are domain errors, which the API's error handler answers).
 */
export const organizationOf = (db: Db, ref: string): Promise<Org> => resolveOrganization(db, ref);
