// The dashboard's shared state lives in the address (lib/billing/view-url): the selected billing
// cycle, the filters every view applies, the chart's toggles and the records' search, sort and
// page. A reload or a shared link opens the same view. Changes replace the address rather than
// adding history entries, so Back leaves the page instead of stepping through every click.
import { useCallback, useEffect, useMemo, useRef } from "react";
import { useSearchParams } from "react-router";
import type { BillingCycle } from "../../../contract/billing-cycle-schema";
import type { Grouping } from "../../../contract/usage-schemas";
import type { ChartMetric } from "../../lib/billing/chart";
import type { BillingFilters } from "../../lib/billing/filters";
import { type BillingView, parseBillingView, writeBillingView } from "../../lib/billing/view-url";

const NO_CYCLES: readonly BillingCycle[] = [];

export type BillingState = ReturnType<typeof useBillingState>;

export function useBillingState(cycles: readonly BillingCycle[] | undefined) {
  const [params, setParams] = useSearchParams();
  const view = useMemo(() => parseBillingView(params), [params]);

  // React Router hands a functional update the parameters of the last render, not of the last
  // update: two clicks before a re-render would both start from the same view (two quick clicks
  // on "Next billing period" moved one cycle). Each change starts from the address it last wrote.
  const latest = useRef(params);
  const rendered = useRef(params);
  if (rendered.current !== params) {
    rendered.current = params;
    latest.current = params;
  }
  const change = useCallback(
    (next: (current: BillingView) => Partial<BillingView>) => {
      const current = latest.current;
      const was = parseBillingView(current);
      const written = writeBillingView({ ...was, ...next(was) }, current);
      latest.current = written;
      setParams(written, { replace: true });
    },
    [setParams],
  );

  const list = cycles ?? NO_CYCLES;
  const found = list.findIndex((c) => c.billing_cycle_uuid === view.cycleUuid);
  // None chosen or the chosen cycle is gone: the latest one.
  const index = found === -1 ? list.length - 1 : found;
  const cycle = index >= 0 ? list[index] : undefined;

  // The address says what is shown: unusable values are dropped from it at once, and a cycle
  // that does not exist once the cycles are in.
  const unknownCycle = cycles !== undefined && view.cycleUuid !== null && found === -1;
  useEffect(() => {
    const canonical = writeBillingView(unknownCycle ? { ...view, cycleUuid: null } : view, params);
    if (canonical.toString() !== params.toString()) setParams(canonical, { replace: true });
  }, [params, view, unknownCycle, setParams]);

  const step = useCallback(
    (delta: -1 | 1) =>
      change((was) => {
        // From the cycle the address holds now, which a click just before may have moved.
        const at = list.findIndex((c) => c.billing_cycle_uuid === was.cycleUuid);
        const nextIndex = (at === -1 ? list.length - 1 : at) + delta;
        const next = list[nextIndex];
        if (!next) return {};
        // The latest cycle is the default: its address stays without a period.
        return { cycleUuid: nextIndex === list.length - 1 ? null : next.billing_cycle_uuid, page: 1 };
      }),
    [list, change],
  );

  const update = useCallback(
    (filters: Partial<BillingFilters>) => change((v) => ({ filters: { ...v.filters, ...filters }, page: 1 })),
    [change],
  );
  const setFilters = useCallback((filters: BillingFilters) => change(() => ({ filters, page: 1 })), [change]);
  const setGrouping = useCallback((grouping: Grouping) => change(() => ({ grouping })), [change]);
  const setMetric = useCallback((metric: ChartMetric) => change(() => ({ metric })), [change]);
  const setSearch = useCallback((search: string) => change(() => ({ search, page: 1 })), [change]);
  const setSort = useCallback((sort: BillingView["sort"]) => change(() => ({ sort, page: 1 })), [change]);
  const setPage = useCallback((page: number) => change(() => ({ page })), [change]);

  return useMemo(
    () => ({
      view,
      cycles: list,
      cycle,
      cycleIndex: index,
      canStepBack: index > 0,
      canStepForward: index >= 0 && index < list.length - 1,
      step,
      filters: view.filters,
      setFilters,
      update,
      setGrouping,
      setMetric,
      setSearch,
      setSort,
      setPage,
    }),
    [view, list, cycle, index, step, setFilters, update, setGrouping, setMetric, setSearch, setSort, setPage],
  );
}
