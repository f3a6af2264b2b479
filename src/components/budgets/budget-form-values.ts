// The budget dialog's values and rules, apart from the dialog: what an administrator may type
// (amount in dollars and cents, thresholds as whole percents) and the request body it becomes.
// The limits are the contract's, so the dialog refuses what the API would refuse.
import {
  type BudgetScope,
  DEFAULT_BUDGET_THRESHOLDS,
  MAX_BUDGET_AMOUNT_USD,
  MAX_BUDGET_THRESHOLD_PERCENT,
  MAX_BUDGET_THRESHOLDS,
} from "../../../contract/budget-limits";
import type { BudgetCreate } from "../../../contract/budgets";
import { formatMoney, formatUsd, toMicros, tryParseUsd } from "../../../contract/money";

/** What the form holds: thresholds as the tag list's strings, the amount as typed. */
export type BudgetFormValues = {
  scope: BudgetScope;
  workspace_uuid?: string | null;
  amount: string;
  thresholds: string[];
  hard_limit: boolean;
};

/** What the API is sent (POST /v1/budgets; PATCH sends the same minus scope and workspace). */
export type BudgetRequest = Required<BudgetCreate>;

/** A new budget: for the given workspace, else the organization's unless it has one already. */
export function newBudgetValues(workspaceUuid?: string, organizationTaken = false): BudgetFormValues {
  return {
    scope: workspaceUuid || organizationTaken ? "workspace" : "organization",
    workspace_uuid: workspaceUuid ?? null,
    amount: "",
    thresholds: DEFAULT_BUDGET_THRESHOLDS.map(String),
    hard_limit: false,
  };
}

/** A stored budget as the dialog edits it ("100.00", ["50", "80", "100"]). */
export function budgetFormValues(budget: {
  scope: BudgetScope;
  workspace_uuid: string | null;
  amount: string;
  thresholds: number[];
  hard_limit: boolean;
}): BudgetFormValues {
  return {
    scope: budget.scope,
    workspace_uuid: budget.workspace_uuid,
    amount: formatUsd(toMicros(budget.amount)),
    thresholds: budget.thresholds.map(String),
    hard_limit: budget.hard_limit,
  };
}

/** Why the amount is refused, or null: a positive amount in dollars with at most two decimals. */
export function amountProblem(value: string | undefined): string | null {
  const text = (value ?? "").trim().replace(/^\$/, "").replace(/,/g, "");
  if (text === "") return "Enter the monthly budget in USD";
  if (!/^\d+(\.\d{1,2})?$/.test(text)) return "Enter an amount like 100 or 250.50";
  const micros = tryParseUsd(text);
  if (micros === null || micros <= 0n) return "The budget must be more than $0.00";
  if (micros > BigInt(MAX_BUDGET_AMOUNT_USD) * 1_000_000n) {
    return `The budget can be at most ${formatMoney(BigInt(MAX_BUDGET_AMOUNT_USD) * 1_000_000n)}`;
  }
  return null;
}

/** Why the thresholds are refused, or null: 1–10 distinct whole percents from 1 to 1000. */
export function thresholdsProblem(values: readonly string[] | undefined): string | null {
  const list = (values ?? []).map((value) => value.trim().replace(/%$/, ""));
  if (list.length === 0) return "Add at least one alert threshold";
  const bad = list.find((value) => !/^\d+$/.test(value));
  if (bad !== undefined) return `"${bad}" is not a whole percent`;
  const numbers = list.map(Number);
  const outside = numbers.find((n) => n < 1 || n > MAX_BUDGET_THRESHOLD_PERCENT);
  if (outside !== undefined) return `Thresholds are between 1% and ${MAX_BUDGET_THRESHOLD_PERCENT}%`;
  if (new Set(numbers).size !== numbers.length) return "Each threshold can be given once";
  if (numbers.length > MAX_BUDGET_THRESHOLDS) return `At most ${MAX_BUDGET_THRESHOLDS} thresholds`;
  return null;
}

/** The request body: amount as an exact decimal string, thresholds as ascending numbers. */
export function budgetRequest(values: BudgetFormValues): BudgetRequest {
  const amount = values.amount.trim().replace(/^\$/, "").replace(/,/g, "");
  return {
    scope: values.scope,
    workspace_uuid: values.scope === "workspace" ? (values.workspace_uuid ?? null) : null,
    amount: formatUsd(tryParseUsd(amount) ?? 0n),
    thresholds: values.thresholds
      .map((value) => Number(value.trim().replace(/%$/, "")))
      .sort((a, b) => a - b),
    hard_limit: values.hard_limit === true,
  };
}
