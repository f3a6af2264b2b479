/**
 * What the operator route plugins share: the organization named in the path, the largest amount
 * they take, and their error answers.
 */
import { z } from "zod";
import { type Org, resolveOrganization } from "../../metering/billing/billing";
import type { Db } from "../../platform/database";
import { textField } from "../fields";
import { failure } from "../schemas";

/** The refusals every operator route may answer before it looks at its input. */
export const OPERATOR_ERRORS = {
  400: failure("Invalid request"),
  401: failure("No bearer token, or one that is not valid"),
  403: failure("Not a provider operator"),
};

/** A body a call may leave out: `null` stands for a call sent without one (the defaults apply). */
export const optionalBody = <S extends z.ZodRawShape>(id: string, shape: S) =>
  z.strictObject(shape).meta({ id }).nullable();

/** The largest amount an operator may record in one payment or prepay for one group. */
export const MAX_OPERATOR_AMOUNT_USD = 1_000_000_000;

export const OrganizationParamsSchema = z.strictObject({
  organization: textField("organization", 200).meta({
    description: "The organization's uuid, slug or exact name.",
  }),
});

/**
 * The organization named by uuid, slug or exact name; 404 when none is (resolveOrganization's
 * refusals are domain errors, which the API's error handler answers).
 */
export const organizationOf = (db: Db, ref: string): Promise<Org> => resolveOrganization(db, ref);
