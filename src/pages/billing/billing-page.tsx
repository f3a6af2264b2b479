// "/" Billing & Usage (administrators only; the route redirects members): totals, period stepper,
// workspace and filter selection, Usage Summary, the chart and the records table. Every view reads
// the server's aggregates for the selected period and filters; nothing loads a whole cycle.
import { ReloadOutlined } from "@ant-design/icons";
import { useInvalidate } from "@refinedev/core";
import { Alert, Button, Card, Divider, Flex, Typography } from "antd";
import { PageTitle } from "../../components/page-title";
import { useCurrentUser } from "../../hooks/use-current-user";
import { formatUtcDate, formatUtcTime } from "../../lib/billing/dates";
import { FilterBar } from "./filter-bar";
import { PeriodStepper } from "./period-stepper";
import { RecordsTable } from "./records-table";
import { TotalsStrip } from "./totals-strip";
import { UsageChart } from "./usage-chart";
import { UsageSummary } from "./usage-summary";
import { useBillingCycles, useBillingWorkspaces, useUsageSummary } from "./use-billing-data";
import { useBillingState } from "./use-billing-state";
import { WorkspaceSelect } from "./workspace-select";

export function BillingPage() {
  const { data: user } = useCurrentUser();
  const { cycles, query: cyclesQuery } = useBillingCycles();
  const { workspaces } = useBillingWorkspaces();
  const state = useBillingState(cycles);
  const cycleUuid = state.cycle?.billing_cycle_uuid;
  const { summary, query: summaryQuery } = useUsageSummary(cycleUuid, state.filters);
  const invalidate = useInvalidate();

  const refresh = () => {
    cyclesQuery.refetch();
    invalidate({ resource: "usage-records", invalidates: ["list"] });
    summaryQuery.refetch();
  };

  return (
    <>
      <PageTitle
        title="Billing & Usage"
        subtitle="Costs, payments and metered usage of your organization"
        extra={
          <Flex align="center" gap={12}>
            {summary?.data_as_of ? (
              <Typography.Text type="secondary" data-testid="data-as-of" title={summary.data_as_of}>
                Data as of {formatUtcDate(summary.data_as_of)}, {formatUtcTime(summary.data_as_of)}
              </Typography.Text>
            ) : null}
            <Button
              icon={<ReloadOutlined />}
              aria-label="Refresh"
              loading={cyclesQuery.isFetching || summaryQuery.isFetching}
              onClick={refresh}
            />
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
            selected={state.filters.workspaceUuids}
            onChange={(workspaceUuids) => state.update({ workspaceUuids })}
          />
        </Flex>
        <Divider style={{ margin: "12px 0" }} />
        <FilterBar
          filters={state.filters}
          options={summary?.filter_options}
          onChange={state.update}
          onReplace={state.setFilters}
        />
      </Card>
      <TotalsStrip cycle={state.cycle} loading={cyclesQuery.isLoading} />
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
      <UsageChart cycleUuid={cycleUuid} filters={state.filters} />
      <RecordsTable cycleUuid={cycleUuid} filters={state.filters} />
    </>
  );
}
