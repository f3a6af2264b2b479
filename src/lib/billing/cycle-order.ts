// The order the console shows billing cycles in (oldest first; the latest is the default period).
import type { BillingCycle } from "../../../contract/billing-cycle-schema";

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
