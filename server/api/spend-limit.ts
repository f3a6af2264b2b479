/**
 * The refusal of a call that would start work in a workspace past a hard limit: HTTP 402 with the
 * code spend_limit_exceeded (contract/budgets.ts SPEND_LIMIT_ERROR_CODE). One schema and one helper
 * so every work-starting route documents and answers it the same way.
 */
import { z } from "zod";
import { SPEND_LIMIT_ERROR_CODE } from "../../contract/budgets";
import { allowanceFor } from "../metering/allowance";
import type { Db } from "../platform/database";
import { ApiError } from "../platform/errors";
import { json } from "./schemas";

export const SpendLimitErrorSchema = z
  .object({
    error: z.object({
      code: z.literal(SPEND_LIMIT_ERROR_CODE),
      message: z
        .string()
        .meta({ description: "Which limit was reached (the workspace's or the organization's)." }),
    }),
  })
  .meta({
    id: "SpendLimitError",
    description:
      "The workspace (or its organization) has reached a budget with a hard limit in the current billing cycle: " +
      "no new work starts until an administrator raises or removes the limit, or the next cycle begins. " +
      "GET /v1/usage/allowance answers the same question before a call.",
  });

/** The 402 entry of a work-starting route's `response` map. */
export const spendLimitResponse = (description = "The workspace is past a hard spend limit") =>
  json(`${description} (code ${SPEND_LIMIT_ERROR_CODE})`, SpendLimitErrorSchema);

const MESSAGES = {
  workspace_hard_limit:
    "This workspace has reached its hard spend limit for the current billing cycle; an administrator can raise its budget.",
  organization_hard_limit:
    "The organization has reached its hard spend limit for the current billing cycle; an administrator can raise its budget.",
} as const;

/** Throws the 402 when work may not start in the workspace now (see allowanceFor). */
export async function requireSpendAllowance(db: Db, organizationId: string, workspaceUuid: string) {
  const allowance = await allowanceFor(db, organizationId, workspaceUuid);
  if (!allowance.allowed && allowance.reason)
    throw new ApiError(SPEND_LIMIT_ERROR_CODE, MESSAGES[allowance.reason]);
  return allowance;
}
