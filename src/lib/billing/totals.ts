// The totals strip: Total Cost (with a per-group breakdown), Paid and Balance of a billing cycle.
import type { BillingCycle } from "../../../contract/billing-cycle-schema";
import { amountDueMicros, cycleBalanceMicros } from "../../../contract/cycle-balance";
import { formatMoney, toMicros } from "../../../contract/money";
import type { Sums } from "../../../contract/usage-schemas";
import { groupLabel } from "./labels";

/** Balance = the sum of the groups' positive remaining balances plus the unattributed cost. */
export const balanceMicros = (cycle: BillingCycle): bigint =>
  cycleBalanceMicros(
    toMicros(cycle.unattributed_cost),
    cycle.workspace_groups.map((g) => toMicros(g.balance_remaining)),
  );

/** The cycle's total cost (the groups' costs plus the unattributed cost). */
export const totalCostMicros = (cycle: BillingCycle): bigint => toMicros(cycle.total_cost);

/** The per-group lines under Total Cost, shown only when there is more than one group. */
export function groupBreakdown(cycle: BillingCycle): { label: string; cost: bigint }[] {
  if (cycle.workspace_groups.length <= 1) return [];
  return cycle.workspace_groups.map((g) => ({
    label: groupLabel(g.group_name),
    cost: toMicros(g.total_cost),
  }));
}

/**
 * The Balance card's caption, by what the figure is (spec §2: the groups' usage beyond their
 * prepaid amounts plus the unattributed cost; payments are not subtracted) and how much of it
 * the cycle's payments cover.
 */
export function balanceCaption(cycle: BillingCycle): string {
  const balance = balanceMicros(cycle);
  if (balance < 0n) return "Credit remaining";
  if (balance === 0n) return "Nothing beyond prepaid credit";
  const paid = toMicros(cycle.paid_amount_usd);
  if (paid >= balance) return "Beyond prepaid credit · paid in full";
  if (paid > 0n) return `Beyond prepaid credit · ${formatMoney(amountDueMicros(balance, paid))} unpaid`;
  return "Beyond prepaid credit · unpaid";
}

/** A summary row's usage alone: its sums minus its credits and other price adjustments. */
export function usageOnly(row: Sums & { adjustments: Sums }): {
  events: number;
  count: number;
  cost: bigint;
} {
  const adj = row.adjustments;
  return {
    events: row.events - adj.events,
    count: row.count - adj.count,
    cost: toMicros(row.cost) - toMicros(adj.cost),
  };
}
