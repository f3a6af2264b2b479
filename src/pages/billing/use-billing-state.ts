// The dashboard's shared state: the selected billing cycle, the filters every view applies, and
// the records search. The latest cycle is selected (and filters are empty) when data first loads.
import { useCallback, useMemo, useState } from "react";
import { type BillingFilters, EMPTY_FILTERS } from "../../lib/billing/filters";
import type { BillingCycle } from "../../lib/billing/types";

const NO_CYCLES: readonly BillingCycle[] = [];

export type BillingState = ReturnType<typeof useBillingState>;

export function useBillingState(cycles: readonly BillingCycle[] | undefined) {
  const [chosenCycle, setChosenCycle] = useState<string | null>(null);
  const [filters, setFilters] = useState<BillingFilters>(EMPTY_FILTERS);

  const list = cycles ?? NO_CYCLES;
  const found = list.findIndex((c) => c.billing_cycle_uuid === chosenCycle);
  // Nothing chosen yet (first load) or the chosen cycle is gone: the latest one.
  const index = found === -1 ? list.length - 1 : found;
  const cycle = index >= 0 ? list[index] : undefined;

  const step = useCallback(
    (delta: -1 | 1) => {
      const next = list[index + delta];
      if (next) setChosenCycle(next.billing_cycle_uuid);
    },
    [list, index],
  );

  const update = useCallback(
    (change: Partial<BillingFilters>) => setFilters((current) => ({ ...current, ...change })),
    [],
  );

  return useMemo(
    () => ({
      cycles: list,
      cycle,
      cycleIndex: index,
      canStepBack: index > 0,
      canStepForward: index >= 0 && index < list.length - 1,
      step,
      filters,
      setFilters,
      update,
    }),
    [list, cycle, index, step, filters, update],
  );
}
