/**
 * The refusal of a call that would start work in a workspace past a hard limit: HTTP 402 with the
 * code spend_limit_exceeded (contract/budgets.ts SPEND_LIMIT_ERROR_CODE). One schema and one helper
 * so every work-starting route documents and answers it the same way.
 */
import { z } from "zod";
import { SPEND_LIMIT_ERROR_CODE } from "../../contract/budgets";
import { formatMoney, formatUsdExact } from "../../contract/money";
import { MoneySchema } from "../../contract/usage-schemas";
import { judgeAllowance } from "../metering/budgets/allowance";
import type { Db, Tx } from "../platform/database";
import { ApiError } from "../platform/errors";
import { json } from "./schemas";

export const SpendLimitErrorSchema = z
  .object({
    error: z.object({
      code: z.literal(SPEND_LIMIT_ERROR_CODE),
      message: z
        .string()
        .meta({ description: "Which limit was reached (the workspace's or the organization's)." }),
      shortfall: MoneySchema.optional().meta({
        description: "With an estimate: how much more room the run needed (estimate − free).",
      }),
      estimate: MoneySchema.optional(),
      free: MoneySchema.optional().meta({ description: "amount − spent − reserved of the tightest limit." }),
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

const OWNER = { workspace_hard_limit: "workspace's", organization_hard_limit: "organization's" } as const;

/**
 * Throws the 402 when work may not start in the workspace now, or with `estimateMicros` when that
 * much does not fit in the free spend of every hard limit covering it (see judgeAllowance); the
 * refusal then names the shortfall. Nothing free refuses any estimate, 0 included. Called under the organization's budget lock when it reserves.
 */
export async function requireSpendAllowance(
  db: Db | Tx,
  organizationId: string,
  workspaceUuid: string,
  estimateMicros: bigint | null = null,
) {
  const judged = await judgeAllowance(db, organizationId, workspaceUuid, estimateMicros);
  if (judged.allowed || !judged.reason) return judged;
  if (estimateMicros === null) throw new ApiError(SPEND_LIMIT_ERROR_CODE, MESSAGES[judged.reason]);
  const free = judged.freeMicros ?? 0n;
  const details = {
    shortfall: formatUsdExact(judged.shortfallMicros),
    estimate: formatUsdExact(estimateMicros),
    free: formatUsdExact(free),
  };
  // Nothing free: the limit is reached, whatever the estimate (one of 0 included).
  if (free === 0n) throw new ApiError(SPEND_LIMIT_ERROR_CODE, MESSAGES[judged.reason], details);
  throw new ApiError(
    SPEND_LIMIT_ERROR_CODE,
    `The run's estimate of ${formatMoney(estimateMicros)} does not fit: the ${OWNER[judged.reason]} hard spend limit has ` +
      `${formatMoney(free)} free in the current billing cycle (spend and other runs' reservations set aside), ` +
      `${formatMoney(judged.shortfallMicros)} short. Nothing was started; an administrator can raise the budget.`,
    details,
  );
}
