// "/eval-runs": the cost of each eval run of a billing cycle, for administrators. Paged, sorted,
// searched and filtered by the server (GET /v1/eval-runs); each run opens its own page.
import { FilterDropdown, getDefaultFilter, getDefaultSortOrder } from "@refinedev/antd";
import { useLink } from "@refinedev/core";
import { Flex, Form, Select, Typography } from "antd";
import { useMemo } from "react";
import { EVAL_RUN_PAGE_SIZE } from "../../../contract/eval-run-paging";
import type { EvalRunList } from "../../../contract/eval-runs";
import { evalTypeLabel } from "../../../contract/eval-types";
import { formatMoney } from "../../../contract/money";
import { outcomeColumns, useCompareSelection } from "../../components/eval-runs/outcome-columns";
import { PageList } from "../../components/layout/page-list";
import { formatColumn } from "../../components/table/columns";
import { FilterForm } from "../../components/table/filter-form";
import { ListTable } from "../../components/table/list-table";
import { SearchField } from "../../components/table/search-field";
import { useListTable } from "../../components/table/use-list-table";
import { formatUtcDateTime, periodLabel } from "../../lib/billing/dates";
import { orDash } from "../../lib/billing/labels";
import {
  type EvalRunFilterValues,
  evalRunFilters,
  evalRunFilterValues,
  evalRunPath,
  exactMoney,
} from "../../lib/eval-runs";
import { evalRuns as resource } from "../../resources/eval-runs";
import { useBillingCycles, useBillingWorkspaces } from "../billing/use-billing-data";

type EvalRunRow = EvalRunList["eval_runs"][number];

export function EvalRunsListPage() {
  const Link = useLink();
  const { cycles } = useBillingCycles();
  const { workspaces } = useBillingWorkspaces();
  // Paging, sorting and filters are Refine's, kept in the URL: the filter form reads them back.
  const list = useListTable<EvalRunRow, EvalRunFilterValues>({
    resource: resource.name,
    pageSize: EVAL_RUN_PAGE_SIZE,
    sorters: { mode: "server", initial: [{ field: "started_at", order: "desc" }] },
    onSearch: evalRunFilters,
  });
  const { filters, sorters } = list;
  const applied = evalRunFilterValues(filters);
  const { rowSelection, compare } = useCompareSelection(applied.billing_cycle_uuid);

  const cycleOptions = useMemo(
    () =>
      [...(cycles ?? [])].reverse().map((c) => ({
        value: c.billing_cycle_uuid,
        label: periodLabel(c.billing_cycle_start_date, c.billing_cycle_end_date),
      })),
    [cycles],
  );

  return (
    <PageList resource={resource.name} title="Eval Runs">
      <Flex vertical gap={16}>
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          What each eval run cost in a billing cycle, from the usage its events carry. Open a run for its cost
          per operation and its events.
        </Typography.Paragraph>
        <FilterForm<EvalRunFilterValues>
          searchFormProps={list.searchFormProps}
          initialValues={applied}
          label="Eval run filters"
        >
          <SearchField
            name="search"
            label="Search eval runs"
            placeholder="Search by run ID or eval name..."
          />
          <Form.Item name="billing_cycle_uuid">
            <Select
              aria-label="Billing period"
              data-testid="eval-runs-period"
              style={{ minWidth: 240 }}
              placeholder="Current billing period"
              allowClear
              options={cycleOptions}
            />
          </Form.Item>
        </FilterForm>
        <Flex justify="flex-end">{compare}</Flex>
        <ListTable<EvalRunRow>
          list={list}
          rowSelection={rowSelection}
          failed="The eval runs could not be loaded."
          empty={
            applied.search ? `No eval runs match "${applied.search}"` : "No eval runs in this billing period"
          }
          scroll={{ x: 1260 }}
          pager={{ one: "run", right: true }}
          columns={[
            {
              title: "Run ID",
              dataIndex: "eval_run_uuid",
              key: "eval_run_uuid",
              width: 170,
              ellipsis: true,
              render: (run: string) => (
                <Link to={evalRunPath(run, applied.billing_cycle_uuid)}>
                  <Typography.Text code style={{ fontSize: 12 }}>
                    {run}
                  </Typography.Text>
                </Link>
              ),
            },
            {
              title: "Eval",
              dataIndex: "eval_name",
              key: "eval_name",
              ellipsis: true,
              render: (name: string | null) => orDash(name),
            },
            {
              title: "Workspace",
              dataIndex: "workspace_name",
              // The column's filter is Refine's filter on this field (useTable's onChange).
              key: "workspace_uuid",
              width: 160,
              ellipsis: true,
              // Controlled by Refine's filters, so what the URL says is what the column shows.
              filteredValue: getDefaultFilter("workspace_uuid", filters, "in") ?? null,
              filterDropdown: (props) => (
                <FilterDropdown {...props}>
                  <Select
                    aria-label="Workspace"
                    data-testid="eval-runs-workspace"
                    mode="multiple"
                    allowClear
                    placeholder="All workspaces"
                    style={{ minWidth: 220 }}
                    options={workspaces.map((w) => ({ value: w.workspace_uuid, label: w.name }))}
                    optionFilterProp="label"
                  />
                </FilterDropdown>
              ),
            },
            {
              title: "Eval Type",
              dataIndex: "eval_type",
              key: "eval_type",
              width: 120,
              render: (type: string | null) => (type ? evalTypeLabel(type) : "-"),
            },
            {
              ...formatColumn<EvalRunRow>("Started", "started_at", formatUtcDateTime, { width: 185 }),
              sorter: true,
              defaultSortOrder: getDefaultSortOrder("started_at", sorters),
            },
            {
              title: "Events",
              dataIndex: "events",
              key: "events",
              width: 95,
              align: "right",
              sorter: true,
              defaultSortOrder: getDefaultSortOrder("events", sorters),
              render: (n: number) => n.toLocaleString("en-US"),
            },
            ...outcomeColumns(sorters),
            {
              title: "Cost",
              dataIndex: "cost",
              key: "cost",
              width: 110,
              align: "right",
              fixed: "right",
              sorter: true,
              defaultSortOrder: getDefaultSortOrder("cost", sorters),
              render: (cost: string) => <span title={exactMoney(cost)}>{formatMoney(cost)}</span>,
            },
          ]}
        />
      </Flex>
    </PageList>
  );
}
