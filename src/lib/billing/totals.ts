// The totals strip: Total Cost (with a per-group breakdown), Paid and Balance of a billing cycle.
import { groupLabel } from "./labels";
import { sumMicros, toMicros } from "./money";
import type { BillingCycle } from "./types";

/** Cycles in start-date order (ascending), the order the stepper walks. */
export function sortCycles(cycles: readonly BillingCycle[]): BillingCycle[] {
  return [...cycles].sort((a, b) =>
    a.billing_cycle_start_date === b.billing_cycle_start_date
      ? a.billing_cycle_uuid.localeCompare(b.billing_cycle_uuid)
      : a.billing_cycle_start_date < b.billing_cycle_start_date
        ? -1
        : 1,
  );
}

/** Balance = the sum of the groups' positive remaining balances plus the unattributed cost. */
export function balanceMicros(cycle: BillingCycle): bigint {
  let total = toMicros(cycle.unattributed_cost);
  for (const group of cycle.workspace_groups) {
    const remaining = toMicros(group.balance_remaining);
    if (remaining > 0n) total += remaining;
  }
  return total;
}

/** The cycle's total cost: as given, else the groups' costs plus the unattributed cost. */
export function totalCostMicros(cycle: BillingCycle): bigint {
  if (cycle.total_cost !== undefined) return toMicros(cycle.total_cost);
  return sumMicros([...cycle.workspace_groups.map((g) => g.total_cost), cycle.unattributed_cost]);
}

/** The per-group lines under Total Cost, shown only when there is more than one group. */
export function groupBreakdown(cycle: BillingCycle): { label: string; cost: bigint }[] {
  if (cycle.workspace_groups.length <= 1) return [];
  return cycle.workspace_groups.map((g) => ({
    label: groupLabel(g.group_name),
    cost: toMicros(g.total_cost),
  }));
}
