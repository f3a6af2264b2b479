// The usage records as Refine's table (/v1/usage/records, paged, sorted, searched and filtered on
// the server). It starts from the address's page, sort, filters and search (after
// lib/billing/address has rewritten an old or hand-edited link); the page's address hook
// (use-billing-address) writes them back with the page's view, so the table does not sync with the
// location itself. The filters and search are the one source for the whole page: the summary, the
// chart and the export read them from here. The billing period is not a table filter but the
// page's view (use-billing-state), sent with every read as the records' scope.
import { useTable } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { useCallback, useEffect, useMemo, useRef } from "react";
import type { UsageRecord } from "../../../contract/usage-schemas";
import {
  type BillingFilters,
  DEFAULT_SORT,
  filtersOfTable,
  readSort,
  recordFilters,
} from "../../lib/billing/filters";
import { RECORDS_PAGE_SIZE } from "../../lib/billing/paging";
import { usageRecords } from "../../resources/usage-records";
import type { TableStart } from "./use-billing-address";
import type { UsageScope } from "./use-billing-state";

export type RecordsTable = ReturnType<typeof useRecordsTable>;

export function useRecordsTable(scope: UsageScope, start: TableStart) {
  const cycleUuid = scope.cycleUuid;
  const table = useTable<UsageRecord, HttpError>({
    resource: usageRecords.name,
    syncWithLocation: false,
    pagination: { mode: "server", pageSize: RECORDS_PAGE_SIZE, currentPage: start.currentPage },
    sorters: { mode: "server", initial: start.sorters.length ? start.sorters : [DEFAULT_SORT] },
    filters: { mode: "server", initial: start.filters },
    meta: { query: { billing_cycle_uuid: cycleUuid } },
    errorNotification: false,
    // The previous page stays on screen while the next one loads.
    queryOptions: { enabled: scope.ready, placeholderData: (previous) => previous },
  });
  const { filters, setFilters, setCurrentPage, sorters } = table;
  const selection = useMemo(() => filtersOfTable(filters), [filters]);

  // Another period starts at the first page of its records (a link's page stays: no reset on the
  // first cycle known).
  const shownCycle = useRef(scope);
  useEffect(() => {
    const was = shownCycle.current;
    if (was.ready && scope.ready && was.cycleUuid !== scope.cycleUuid) setCurrentPage(1);
    shownCycle.current = scope;
  }, [scope, setCurrentPage]);

  // Each change starts from the filters as last set (two quick changes both count), and any new
  // selection starts at the first page.
  const select = useCallback(
    (next: (current: Selection) => Partial<Selection>) => {
      setFilters((previous) => {
        const was = filtersOfTable(previous);
        const { filters: f, search } = { ...was, ...next(was) };
        return recordFilters(f, search);
      });
      setCurrentPage(1);
    },
    [setFilters, setCurrentPage],
  );

  return {
    ...table,
    usageFilters: selection.filters,
    search: selection.search,
    sort: readSort(sorters),
    /** Changes some of the filter bar's filters. */
    update: useCallback(
      (change: Partial<BillingFilters>) => select((was) => ({ filters: { ...was.filters, ...change } })),
      [select],
    ),
    replaceFilters: useCallback((f: BillingFilters) => select(() => ({ filters: f })), [select]),
    setSearch: useCallback((search: string) => select(() => ({ search })), [select]),
  };
}

type Selection = { filters: BillingFilters; search: string };
