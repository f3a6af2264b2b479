// The page's state beside the records table, in the address (lib/billing/view-url): the selected
// billing cycle and the chart's toggles. A reload or a shared link opens the same view. Changes
// replace the address rather than adding history entries, so Back leaves the page instead of
// stepping through every click.
import { useGo } from "@refinedev/core";
import { useCallback, useEffect, useMemo, useRef } from "react";
import { useSearchParams } from "react-router";
import type { BillingCycle } from "../../../contract/billing-cycle-schema";
import type { Grouping } from "../../../contract/usage-schemas";
import type { ChartMetric } from "../../lib/billing/chart";
import { type BillingView, parseBillingView, viewQuery } from "../../lib/billing/view-url";

const NO_CYCLES: readonly BillingCycle[] = [];

export type BillingState = ReturnType<typeof useBillingState>;

export function useBillingState(cycles: readonly BillingCycle[] | undefined) {
  const [params] = useSearchParams();
  const view = useMemo(() => parseBillingView(params), [params]);
  const go = useGo();

  // The address of a render is that of the last render, not of the last change: two clicks before
  // a re-render would both start from the same view (two quick clicks on "Next billing period"
  // moved one cycle). Each change starts from the view it last wrote.
  const latest = useRef(view);
  const rendered = useRef(view);
  if (rendered.current !== view) {
    rendered.current = view;
    latest.current = view;
  }
  // The address's other parameters (the records table's) are kept.
  const goRef = useRef(go);
  goRef.current = go;
  const change = useCallback((next: (current: BillingView) => Partial<BillingView>) => {
    const written = { ...latest.current, ...next(latest.current) };
    latest.current = written;
    goRef.current({
      type: "replace",
      options: { keepQuery: true, keepHash: true },
      query: viewQuery(written),
    });
  }, []);

  const list = cycles ?? NO_CYCLES;
  const found = list.findIndex((c) => c.billing_cycle_uuid === view.cycleUuid);
  // None chosen or the chosen cycle is gone: the latest one.
  const index = found === -1 ? list.length - 1 : found;
  const cycle = index >= 0 ? list[index] : undefined;

  // A cycle that does not exist (once the cycles are in) is dropped from the address.
  const unknownCycle = cycles !== undefined && view.cycleUuid !== null && found === -1;
  useEffect(() => {
    if (unknownCycle) change(() => ({ cycleUuid: null }));
  }, [unknownCycle, change]);

  const step = useCallback(
    (delta: -1 | 1) => {
      // From the cycle the address holds now, which a click just before may have moved.
      const at = list.findIndex((c) => c.billing_cycle_uuid === latest.current.cycleUuid);
      const nextIndex = (at === -1 ? list.length - 1 : at) + delta;
      const next = list[nextIndex];
      if (!next) return;
      // The latest cycle is the default: its address stays without a period.
      change(() => ({ cycleUuid: nextIndex === list.length - 1 ? null : next.billing_cycle_uuid }));
    },
    [list, change],
  );

  const setGrouping = useCallback((grouping: Grouping) => change(() => ({ grouping })), [change]);
  const setMetric = useCallback((metric: ChartMetric) => change(() => ({ metric })), [change]);

  return useMemo(
    () => ({
      view,
      cycles: list,
      cycle,
      cycleIndex: index,
      canStepBack: index > 0,
      canStepForward: index >= 0 && index < list.length - 1,
      step,
      setGrouping,
      setMetric,
    }),
    [view, list, cycle, index, step, setGrouping, setMetric],
  );
}
