// The words and numbers the budget views show, as plain functions (no React), so the sentences,
// percentages and money are tested once and the section, the workspace card and the banner say
// the same thing. Money goes through contract/money.ts: exact micros, "$1,234.50".
import type { BudgetAlert, BudgetScope } from "../../../contract/budgets";
import { formatMoney, toMicros } from "../../../contract/money";

type Named = { scope: BudgetScope; workspace_name: string | null };

/** "Organization" or the workspace's name (a deleted workspace's budget still has to read well). */
export function budgetOwner({ scope, workspace_name }: Named): string {
  if (scope === "organization") return "Organization";
  return workspace_name?.trim() || "Unnamed workspace";
}

/** The subject of a sentence: "Your organization" or "Workspace Alpha". */
function subject(budget: Named): string {
  return budget.scope === "organization" ? "Your organization" : `Workspace ${budgetOwner(budget)}`;
}

/** "12.5%", "80%", "0%": up to one decimal, never rounded up to a threshold not reached. */
export function formatPercent(percent: number): string {
  if (!Number.isFinite(percent) || percent <= 0) return "0%";
  const tenths = Math.floor(percent * 10) / 10;
  return `${Number.isInteger(tenths) ? tenths.toFixed(0) : tenths.toFixed(1)}%`;
}

/** "$42.10 of $100.00". */
export function spentOfAmount(budget: { spent: string; amount: string }): string {
  return `${formatMoney(toMicros(budget.spent))} of ${formatMoney(toMicros(budget.amount))}`;
}

/**
 * The banner's sentence for one budget's alerts: the highest threshold crossed speaks for the
 * budget ("…has used 100%…" rather than one line for 80% and another for 100%).
 * "Workspace Alpha has used 80% of its $100.00 monthly budget."
 */
export function alertSentence(alert: Pick<BudgetAlert, "scope" | "workspace_name" | "threshold" | "amount">) {
  return `${subject(alert)} has used ${alert.threshold}% of its ${formatMoney(toMicros(alert.amount))} monthly budget.`;
}

/** One alert per budget (its highest triggered threshold), organization first, then by name. */
export function bannerAlerts<
  T extends Pick<BudgetAlert, "budget_uuid" | "state" | "threshold" | "scope" | "workspace_name">,
>(alerts: readonly T[] | undefined): T[] {
  const highest = new Map<string, T>();
  for (const alert of alerts ?? []) {
    if (alert.state !== "triggered") continue;
    const seen = highest.get(alert.budget_uuid);
    if (!seen || alert.threshold > seen.threshold) highest.set(alert.budget_uuid, alert);
  }
  return [...highest.values()].sort(
    (a, b) =>
      Number(b.scope === "organization") - Number(a.scope === "organization") ||
      budgetOwner(a).localeCompare(budgetOwner(b)),
  );
}

/**
 * Where the progress bar ends: 100% of the amount, or further when a threshold lies beyond it
 * (a 120% warning must have a mark on the bar). Spend beyond the end fills the bar.
 */
export function barScale(thresholds: readonly number[]): number {
  return Math.max(100, ...thresholds);
}

/** The bar's fill and marks in percent of its width. */
export function barGeometry(percentUsed: number, thresholds: readonly number[]) {
  const scale = barScale(thresholds);
  const used = Number.isFinite(percentUsed) ? Math.max(0, percentUsed) : 0;
  return {
    fill: Math.min(100, (used / scale) * 100),
    marks: thresholds.map((threshold) => ({ threshold, at: (threshold / scale) * 100 })),
  };
}

/** How the bar is coloured: over the amount, past a threshold, or fine. */
export function budgetStatus(budget: {
  percent_used: number;
  triggered_thresholds: readonly number[];
}): "over" | "warning" | "normal" {
  if (budget.percent_used >= 100) return "over";
  return budget.triggered_thresholds.length > 0 ? "warning" : "normal";
}
