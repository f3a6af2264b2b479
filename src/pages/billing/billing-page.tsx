// "/" Billing & Usage (administrators only; the route redirects members): totals, period stepper,
// workspace and filter selection, Usage Summary, the chart and the records table. Every view reads
// the server's aggregates for the selected period and filters; nothing loads a whole cycle.
import { ReloadOutlined } from "@ant-design/icons";
import { useGo, useInvalidate } from "@refinedev/core";
import { Alert, Button, Card, Divider, Flex, Typography } from "antd";
import { useCallback, useEffect, useMemo } from "react";
import { useLocation } from "react-router";
import { BudgetsSection } from "../../components/budgets/budgets-section";
import { PageTitle } from "../../components/page-title";
import { useCurrentUser } from "../../hooks/use-current-user";
import { useIsMobile } from "../../hooks/use-is-mobile";
import { fixBillingAddress } from "../../lib/billing/address";
import { formatUtcDate, formatUtcTime } from "../../lib/billing/dates";
import { usageRecords } from "../../resources/usage-records";
import { CompletenessNote } from "./completeness-note";
import { ExplainDrawer } from "./explain-drawer";
import { FilterBar } from "./filter-bar";
import { PeriodStepper } from "./period-stepper";
import { RecordsTable } from "./records-table";
import { TotalsStrip } from "./totals-strip";
import { UsageChart } from "./usage-chart";
import { UsageSummary } from "./usage-summary";
import { useBillingAddress, useBillingAddressWrite } from "./use-billing-address";
import {
  useAwaitingPricing,
  useBillingCycles,
  useBillingWorkspaces,
  useUsageSeries,
  useUsageSummary,
} from "./use-billing-data";
import { useBillingState } from "./use-billing-state";
import { useExplainState } from "./use-explain-state";
import { useRecordsTable } from "./use-records-table";
import { WorkspaceSelect } from "./workspace-select";

/** An old or hand-edited link is rewritten once (replacing it) before the records table reads it. */
export function BillingPage() {
  const { search } = useLocation();
  const fixed = useMemo(() => fixBillingAddress(search), [search]);
  const go = useGo();
  useEffect(() => {
    if (fixed) go({ type: "replace", options: { keepHash: true }, query: fixed });
  }, [fixed, go]);
  return fixed ? null : <BillingDashboard />;
}

function BillingDashboard() {
  const { data: user } = useCurrentUser();
  const { cycles, query: cyclesQuery } = useBillingCycles();
  const { workspaces } = useBillingWorkspaces();
  const address = useBillingAddress();
  const state = useBillingState(cycles, address);
  const explain = useExplainState(address);
  const { scope } = state;
  const records = useRecordsTable(scope, address.tableStart);
  useBillingAddressWrite(address, records);
  const filters = records.usageFilters;
  const { summary, query: summaryQuery } = useUsageSummary(scope, filters);
  // The chart is hidden on small screens, and its series is not read there.
  const chartShown = !useIsMobile();
  const chart = useUsageSeries(scope, filters, state.view.grouping, chartShown);
  const invalidate = useInvalidate();
  const { awaiting, query: awaitingQuery } = useAwaitingPricing();

  const { update } = records;
  const onWorkspaces = useCallback((workspaceUuids: string[]) => update({ workspaceUuids }), [update]);
  const awaitingLoading = awaitingQuery.isLoading;
  const awaitingFailed = awaitingQuery.isError;
  const awaitingState = useMemo(
    () => ({ awaiting, loading: awaitingLoading, failed: awaitingFailed }),
    [awaiting, awaitingLoading, awaitingFailed],
  );

  // Everything the page shows is read again; what is on screen stays until the answers are in.
  const refresh = () => {
    cyclesQuery.refetch();
    summaryQuery.refetch();
    awaitingQuery.refetch();
    if (chartShown && scope.ready) chart.query.refetch();
    invalidate({ resource: usageRecords.name, invalidates: ["list"] });
  };
  const refreshing = cyclesQuery.isFetching || summaryQuery.isFetching || chart.query.isFetching;

  return (
    <>
      <PageTitle
        title="Billing & Usage"
        subtitle="Costs, payments and metered usage of your organization"
        extra={
          <Flex align="center" gap={12}>
            {summary?.data_as_of ? <CompletenessNote dataAsOf={summary.data_as_of} /> : null}
            {summary?.data_as_of ? (
              <Typography.Text type="secondary" data-testid="data-as-of" title={summary.data_as_of}>
                Data as of {formatUtcDate(summary.data_as_of)}, {formatUtcTime(summary.data_as_of)}
              </Typography.Text>
            ) : null}
            <Button icon={<ReloadOutlined />} aria-label="Refresh" loading={refreshing} onClick={refresh} />
          </Flex>
        }
      />
      {cyclesQuery.isError ? (
        <Alert
          type="error"
          showIcon
          style={{ marginBottom: 16 }}
          message="Billing data could not be loaded."
          description={cyclesQuery.error?.message}
          action={<Button onClick={() => cyclesQuery.refetch()}>Retry</Button>}
        />
      ) : null}
      <Card size="small" style={{ marginBottom: 16 }} styles={{ body: { padding: "12px 16px" } }}>
        <Flex wrap gap={16} align="flex-end">
          <PeriodStepper state={state} />
          <WorkspaceSelect
            user={user}
            workspaces={workspaces}
            selected={filters.workspaceUuids}
            onChange={onWorkspaces}
          />
        </Flex>
        <Divider style={{ margin: "12px 0" }} />
        <FilterBar
          filters={filters}
          options={summary?.filter_options}
          onChange={records.update}
          onReplace={records.replaceFilters}
        />
      </Card>
      <TotalsStrip
        cycle={state.cycle}
        loading={cyclesQuery.isLoading}
        awaiting={awaitingState}
        onExplain={explain.open}
      />
      <ExplainDrawer cycle={state.cycle} state={explain} />
      <BudgetsSection />
      {summaryQuery.isError ? (
        <Alert
          type="error"
          showIcon
          style={{ marginBottom: 16 }}
          message="The usage summary could not be loaded."
          description={summaryQuery.error?.message}
          action={<Button onClick={() => summaryQuery.refetch()}>Retry</Button>}
        />
      ) : null}
      <UsageSummary
        summary={summary}
        loading={!cyclesQuery.isError && (cyclesQuery.isLoading || summaryQuery.isLoading)}
      />
      {chartShown ? <UsageChart {...chart} state={state} /> : null}
      <RecordsTable scope={scope} cycleUuid={state.cycle?.billing_cycle_uuid} records={records} />
    </>
  );
}
