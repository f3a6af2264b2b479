// The page's view beside the records table (lib/billing/view-url): the selected billing cycle and
// the chart's toggles, held by the page's address (use-billing-address), which writes them.
import { useCallback, useEffect, useMemo } from "react";
import type { BillingCycle } from "../../../contract/billing-cycle-schema";
import type { Grouping } from "../../../contract/usage-schemas";
import type { ChartMetric } from "../../lib/billing/chart";
import type { BillingAddress } from "./use-billing-address";

const NO_CYCLES: readonly BillingCycle[] = [];

export type BillingState = ReturnType<typeof useBillingState>;

/**
 * The usage reads' billing period: `ready` once it is known which one to ask for, `cycleUuid`
 * undefined for the API's default (its current cycle), so that a visit to the latest period asks
 * for its usage without waiting for the list of cycles.
 */
export type UsageScope = { ready: boolean; cycleUuid: string | undefined };

/** The cycle the API reads when none is named: the open one, else the one that starts last. */
function apiDefault(cycles: readonly BillingCycle[]): BillingCycle | undefined {
  return cycles.find((c) => c.billing_cycle_end_date === null) ?? cycles.at(-1);
}

export function useBillingState(cycles: readonly BillingCycle[] | undefined, address: BillingAddress) {
  const { view, setView } = address;
  const list = cycles ?? NO_CYCLES;
  const found = list.findIndex((c) => c.billing_cycle_uuid === view.cycleUuid);
  // None chosen or the chosen cycle is gone: the latest one.
  const index = found === -1 ? list.length - 1 : found;
  const cycle = index >= 0 ? list[index] : undefined;

  // A cycle that does not exist (once the cycles are in) is dropped from the address.
  const unknownCycle = cycles !== undefined && view.cycleUuid !== null && found === -1;
  useEffect(() => {
    if (unknownCycle) setView((was) => ({ ...was, cycleUuid: null }));
  }, [unknownCycle, setView]);

  const step = useCallback(
    (delta: -1 | 1) =>
      // From the view as last set, which a click just before may have moved.
      setView((was) => {
        const at = list.findIndex((c) => c.billing_cycle_uuid === was.cycleUuid);
        const nextIndex = (at === -1 ? list.length - 1 : at) + delta;
        const next = list[nextIndex];
        if (!next) return was;
        // The latest cycle is the default: its address stays without a period.
        return { ...was, cycleUuid: nextIndex === list.length - 1 ? null : next.billing_cycle_uuid };
      }),
    [list, setView],
  );

  const setGrouping = useCallback(
    (grouping: Grouping) => setView((was) => ({ ...was, grouping })),
    [setView],
  );
  const setMetric = useCallback((metric: ChartMetric) => setView((was) => ({ ...was, metric })), [setView]);

  // A named period is asked for once it is known to exist (an unknown one would answer 404); the
  // latest is the API's default unless the API would read another (then it is named).
  const scopeUuid =
    view.cycleUuid !== null
      ? cycle?.billing_cycle_uuid
      : cycle && cycle !== apiDefault(list)
        ? cycle.billing_cycle_uuid
        : undefined;
  const scopeReady = view.cycleUuid === null || (cycles !== undefined && found !== -1);
  const scope = useMemo<UsageScope>(
    () => ({ ready: scopeReady, cycleUuid: scopeReady ? scopeUuid : undefined }),
    [scopeReady, scopeUuid],
  );

  return useMemo(
    () => ({
      view,
      scope,
      cycles: list,
      cycle,
      cycleIndex: index,
      canStepBack: index > 0,
      canStepForward: index >= 0 && index < list.length - 1,
      step,
      setGrouping,
      setMetric,
    }),
    [view, scope, list, cycle, index, step, setGrouping, setMetric],
  );
}
