// The billing page's server reads, each keyed by its parameters (changing the period or a filter
// fetches once; stepping back is served from the cache). useCustom's `result.data` is an empty
// object until the first answer, so answers are read from `query.data`.
import { type HttpError, useCustom, useList } from "@refinedev/core";
import { useMemo } from "react";
import type { BillingCycle } from "../../../contract/billing-cycle-schema";
import type { AwaitingPricing, Grouping, UsageSeries, UsageSummary } from "../../../contract/usage-schemas";
import { sortCycles } from "../../lib/billing/cycle-order";
import { BILLING_CYCLES_PATH } from "../../lib/billing/cycles-path";
import { type BillingFilters, usageQuery } from "../../lib/billing/filters";
import { WORKSPACE_STALE_MS, type WorkspaceRecord } from "../../lib/workspaces";
import type { UsageScope } from "./use-billing-state";

const keepPrevious = <T>(previous: T) => previous;

/** Started by the auth gate when a visit lands on the page (the resource's firstReads), under this
 * hook's key: the page's first render finds it under way or answered. */
export function useBillingCycles() {
  const { query } = useCustom<BillingCycle[], HttpError>({
    url: BILLING_CYCLES_PATH,
    method: "get",
    errorNotification: false,
  });
  const data = query.data?.data;
  const cycles = useMemo(() => (Array.isArray(data) ? sortCycles(data) : undefined), [data]);
  return { cycles, query };
}

export function useUsageSummary(scope: UsageScope, filters: BillingFilters) {
  const { query } = useCustom<UsageSummary, HttpError>({
    url: "/v1/usage/summary",
    method: "get",
    config: { query: usageQuery(scope.cycleUuid, filters) },
    errorNotification: false,
    queryOptions: { enabled: scope.ready, placeholderData: keepPrevious },
  });
  return { summary: scope.ready ? query.data?.data : undefined, query };
}

/** How many of the organization's usage events await pricing (not in any total yet). */
export function useAwaitingPricing() {
  const { query } = useCustom<AwaitingPricing, HttpError>({
    url: "/v1/usage/awaiting-pricing",
    method: "get",
    errorNotification: false,
  });
  const data = query.data?.data;
  return { awaiting: typeof data?.events === "number" ? data : undefined, query };
}

export function useUsageSeries(
  scope: UsageScope,
  filters: BillingFilters,
  grouping: Grouping,
  enabled: boolean,
) {
  const { query } = useCustom<UsageSeries, HttpError>({
    url: "/v1/usage/series",
    method: "get",
    config: { query: { ...usageQuery(scope.cycleUuid, filters), grouping } },
    errorNotification: false,
    queryOptions: { enabled: enabled && scope.ready, placeholderData: keepPrevious },
  });
  return { series: query.data?.data, query };
}

/** Every workspace of the organization, deleted ones included (their usage stays billable). */
export function useBillingWorkspaces() {
  const { result, query } = useList<WorkspaceRecord, HttpError>({
    resource: "workspaces",
    meta: { query: { show_deleted: true } },
    pagination: { mode: "off" },
    errorNotification: false,
    queryOptions: { staleTime: WORKSPACE_STALE_MS },
  });
  return { workspaces: result.data ?? [], query };
}
